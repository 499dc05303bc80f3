// The suite editor: a grid of text boxes (rows are sentences, columns regions), live formula checks, save.
// All text is put into the page with textContent / value, never as HTML.
// Predictions follow the grid: removing or moving a region rewrites the region numbers in every formula, renaming a
// condition rewrites its name; a formula naming a removed region or condition is flagged and blocks Save.
// Structural changes (add, remove, move, paste) can be undone; leaving with unsaved edits asks first.
// Under each formula a guided builder (region or sum of regions, condition, relation, the other side; comparisons
// joined by "and") writes the formula and follows it when typed (prediction-builder.js reads and writes the text).
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const data = JSON.parse(document.getElementById("suite-data").textContent);
  const grid = document.getElementById("grid");
  const predictionList = document.getElementById("predictions");
  const problemsBox = document.getElementById("problems");
  const saveState = document.getElementById("save-state");

  // ------------------------------------------------------------------ state from the suite's JSON
  const regionNumbers = Object.keys(data.region_meta).map(Number).sort((a, b) => a - b);
  const state = {
    name: data.meta.name || "",
    metric: data.meta.metric || "sum",
    extra: Object.fromEntries(Object.entries(data.meta).filter(([k]) => k !== "name" && k !== "metric")),
    regions: regionNumbers.map((n) => data.region_meta[String(n)]),
    conditions: data.items.length ? data.items[0].conditions.map((c) => c.condition_name) : ["condition_a"],
    items: [],
    predictions: data.predictions.map((p) => p.formula !== undefined ? p.formula : websiteFormula(p)),
    // what a prediction carries beside its formula (its own atol/rtol): kept through edits and written back on Save
    predictionExtras: data.predictions.map((p) => Object.fromEntries(
      Object.entries(p).filter(([key]) => key === "atol" || key === "rtol"))),
  };
  for (const item of data.items) {
    const byName = Object.fromEntries(item.conditions.map((c) => [c.condition_name, c]));
    state.items.push({
      number: item.item_number,
      cells: state.conditions.map((name) => regionNumbers.map((n) => {
        const condition = byName[name];
        const region = condition && condition.regions.find((r) => r.region_number === n);
        return region ? region.content : "";
      })),
    });
  }
  // refNames[c]: the name condition c has in the predictions (it lags state.conditions while a rename would clash)
  let refNames = state.conditions.slice();
  if (!state.items.length) state.items.push({number: 1, cells: state.conditions.map(() => state.regions.map(() => ""))});

  function websiteFormula(p) {
    const op = {lessthan: "<", greaterthan: ">", equals: "="}[p.relation] || "<";
    const [left, right] = [`(${p.region_number};%${p.l_operand}%)`, `(${p.region_number};%${p.r_operand}%)`];
    // a suite-level one ("aggregate": "mean"): AGGREGATE(left - right) REL 0, as docs/suite-format.md reads it
    return p.aggregate ? `${p.aggregate}(${left} - ${right}) ${op} 0` : `${left} ${op} ${right}`;
  }

  // ------------------------------------------------------------------ meta fields
  const nameInput = document.getElementById("suite-name");
  const metricSelect = document.getElementById("suite-metric");
  const authorInput = document.getElementById("suite-author");
  const referenceInput = document.getElementById("suite-reference");
  nameInput.value = state.name;
  if (Array.isArray(state.metric)) {
    const option = new Option(state.metric.join(", "), "__list__");
    metricSelect.add(option);
    metricSelect.value = "__list__";
  } else {
    metricSelect.value = state.metric;
  }
  authorInput.value = typeof state.extra.author === "string" ? state.extra.author : "";
  referenceInput.value = typeof state.extra.reference === "string" ? state.extra.reference : "";

  // ------------------------------------------------------------------ the grid
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  function removeButton(label, action, attrs) {
    return el("button", {type: "button", class: "remove", title: label, "aria-label": label, text: "×",
                         onclick: action, ...attrs});
  }

  // ------------------------------------------------------------------ unsaved changes and undo
  let dirty = false;
  let typed = 0;  // edits typed into boxes, so that Undo can say when it would take some of them back
  function markDirty(event) {
    if (event) typed++;
    dirty = true;
    saveState.textContent = "unsaved changes";
    scheduleDraft();
  }
  let leavingToSignIn = false;  // the draft is kept: following "Sign in" needs no "leave site?" question
  window.addEventListener("beforeunload", (event) => {
    if (!dirty || leavingToSignIn) return;
    event.preventDefault();
    event.returnValue = "";  // older browsers show their own "leave site?" text only when this is set
  });
  document.querySelector("main").addEventListener("input", markDirty);

  const undoStack = [];
  const undoButton = document.getElementById("undo");
  function snapshot(label) {
    const {regions, conditions, items, predictions, predictionExtras} = state;
    undoStack.push({label, state: JSON.stringify({regions, conditions, items, predictions, predictionExtras}),
                    refNames: refNames.slice(),
                    typed});
    if (undoStack.length > 50) undoStack.shift();
    updateUndo();
    markDirty(null);
  }
  function undo() {
    const last = undoStack[undoStack.length - 1];
    if (!last) return;
    // the snapshot holds the whole grid: text typed since then goes back too, so ask
    if (typed > last.typed && !window.confirm(`Undo ${last.label}? Text typed since then is undone too.`)) return;
    undoStack.pop();
    Object.assign(state, JSON.parse(last.state));
    refNames = last.refNames;
    updateUndo();
    markDirty(null);
    renderGrid();
    renderPredictions();
  }
  function updateUndo() {
    const last = undoStack[undoStack.length - 1];
    undoButton.disabled = !last;
    undoButton.textContent = last ? `Undo ${last.label}` : "Undo";
  }
  document.addEventListener("keydown", (event) => {
    // inside a text box Ctrl+Z undoes typing, as usual; elsewhere it undoes the last structural change
    const typing = event.target.matches && event.target.matches("input, textarea, select");
    if ((event.ctrlKey || event.metaKey) && !event.shiftKey && event.key.toLowerCase() === "z" && !typing) {
      event.preventDefault();
      undo();
    }
  });

  // ------------------------------------------------------------------ the sentence a model reads
  // Natural spacing, as linguagym/evaluation/sentences.py joins regions by default: non-empty regions (trimmed)
  // joined by one space, but no space before a region that starts with , . ! ? ; :
  const ATTACHING = [",", ".", "!", "?", ";", ":"];
  function sentence(cells) {
    let text = "";
    for (const raw of cells) {
      const content = raw.trim();
      if (content && text && !ATTACHING.includes(content[0])) text += " ";
      text += content;
    }
    return text;
  }

  function renderGrid() {
    grid.replaceChildren();
    const head = el("tr", {}, el("th", {text: "item"}), el("th", {text: "condition"}));
    state.regions.forEach((name, r) => {
      const input = el("input", {type: "text", class: "region-name", "data-r": r, "aria-label": `name of region ${r + 1}`});
      input.value = name;
      input.addEventListener("input", () => { state.regions[r] = input.value; labelGrid(); checkAllFormulas(); });
      head.append(el("th", {}, el("span", {class: "rnum", text: String(r + 1)}), input,
        r > 0 ? el("button", {type: "button", class: "move", title: `move region ${r + 1} left`, text: "←",
                              "aria-label": `move region ${r + 1} left`, onclick: () => moveRegionLeft(r)}) : null,
        state.regions.length > 1 ? removeButton(`remove region ${r + 1}`, () => removeRegion(r)) : null));
    });
    head.append(el("th", {class: "preview-head", text: "sentence (natural spacing)"}));
    grid.append(el("thead", {}, head));
    state.items.forEach((item, i) => {
      const body = el("tbody", {class: "item"});
      state.conditions.forEach((condition, c) => {
        const row = el("tr");
        if (c === 0) {
          const number = el("input", {type: "number", class: "item-number", min: "0", "data-i": i,
                                      "aria-label": `number of item ${i + 1}`});
          number.value = item.number;
          number.addEventListener("input", () => { item.number = Number(number.value); labelGrid(); });
          row.append(el("th", {rowspan: state.conditions.length, class: "inum"}, number,
            state.items.length > 1 ? removeButton(`remove item ${item.number}`, () => removeItem(i), {"data-i": i})
              : null));
        }
        const nameInput = el("input", {type: "text", class: `cond-name c${c % 8}`, "data-c": c,
                                       "aria-label": `name of condition ${c + 1}`});
        nameInput.value = condition;
        nameInput.addEventListener("input", () => {
          state.conditions[c] = nameInput.value;
          grid.querySelectorAll(`input.cond-name[data-c="${c}"]`).forEach((other) => {
            if (other !== nameInput) other.value = nameInput.value;
          });
          followRename(c);
          labelGrid();
          sizeConditionBoxes();
          checkAllFormulas();
        });
        row.append(el("td", {class: "cond"}, nameInput,
          state.conditions.length > 1 && i === 0
            ? removeButton(`remove condition ${c + 1}`, () => removeCondition(c)) : null));
        const preview = el("td", {class: "preview", "data-i": i, "data-c": c, text: sentence(item.cells[c])});
        state.regions.forEach((_, r) => {
          const cell = el("input", {type: "text", class: "cell", "data-i": i, "data-c": c, "data-r": r});
          cell.value = item.cells[c][r];
          cell.addEventListener("input", () => {
            item.cells[c][r] = cell.value;
            cell.classList.remove("invalid");
            preview.textContent = sentence(item.cells[c]);
          });
          row.append(el("td", {}, cell));
        });
        row.append(preview);
        body.append(row);
      });
      grid.append(body);
    });
    labelGrid();
    sizeConditionBoxes();
  }
  // Condition-name boxes as wide as the longest name (a typical "mismatch_plural" shown whole, not cut).
  function sizeConditionBoxes() {
    const longest = Math.max(10, ...state.conditions.map((name) => name.length));
    grid.querySelectorAll("input.cond-name").forEach((box) => { box.style.width = `${longest + 3}ch`; });
  }
  // What a screen reader says for each box, from the current names: called on every rename, not only on rebuilds.
  function cellLabel(i, c, r) {
    const name = state.regions[r].trim();
    return `item ${state.items[i].number}, ${state.conditions[c]}, region ${r + 1}${name ? `: ${name}` : ""}`;
  }
  function labelGrid() {
    grid.querySelectorAll("input.cell").forEach((cell) => {
      cell.setAttribute("aria-label", cellLabel(Number(cell.dataset.i), Number(cell.dataset.c), Number(cell.dataset.r)));
    });
    grid.querySelectorAll("button.remove[data-i]").forEach((button) => {
      const label = `remove item ${state.items[Number(button.dataset.i)].number}`;
      button.setAttribute("aria-label", label);
      button.title = label;
    });
  }

  // ------------------------------------------------------------------ keys and paste in the grid
  // Grid rows are (item, condition) pairs in page order; row k is item floor(k / conditions), condition k % conditions.
  function cellAt(row, r) {
    const n = state.conditions.length;
    return grid.querySelector(`input.cell[data-i="${Math.floor(row / n)}"][data-c="${row % n}"][data-r="${r}"]`);
  }
  function position(cell) {
    return {row: Number(cell.dataset.i) * state.conditions.length + Number(cell.dataset.c), r: Number(cell.dataset.r)};
  }
  grid.addEventListener("keydown", (event) => {
    const cell = event.target;
    if (!cell.matches("input.cell") || event.altKey || event.ctrlKey || event.metaKey) return;
    const {row, r} = position(cell);
    const atStart = cell.selectionStart === 0 && cell.selectionEnd === 0;
    const atEnd = cell.selectionStart === cell.value.length;
    let next = null;
    if (event.key === "Enter") next = cellAt(event.shiftKey ? row - 1 : row + 1, r);
    else if (event.key === "ArrowDown") next = cellAt(row + 1, r);
    else if (event.key === "ArrowUp") next = cellAt(row - 1, r);
    else if (event.key === "ArrowLeft" && atStart) next = cellAt(row, r - 1);
    else if (event.key === "ArrowRight" && atEnd) next = cellAt(row, r + 1);
    else return;
    event.preventDefault();
    if (next) { next.focus(); next.select(); }
  });
  grid.addEventListener("paste", (event) => {
    const cell = event.target;
    if (!cell.matches("input.cell")) return;
    const text = (event.clipboardData || window.clipboardData).getData("text/plain");
    if (!/[\t\n]/.test(text)) return;  // one value: the ordinary paste into this box
    event.preventDefault();
    const lines = text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n").map((line) => line.split("\t"));
    const {row, r} = position(cell);
    snapshot("paste");
    const n = state.conditions.length;
    let dropped = 0;
    lines.forEach((values, k) => {
      const target = row + k;
      while (Math.floor(target / n) >= state.items.length) {  // rows past the end: new items, empty cells
        const number = Math.max(0, ...state.items.map((it) => it.number || 0)) + 1;
        state.items.push({number, cells: state.conditions.map(() => state.regions.map(() => ""))});
      }
      const cells = state.items[Math.floor(target / n)].cells[target % n];
      values.forEach((value, j) => {
        if (r + j < cells.length) cells[r + j] = value.trim(); else dropped++;
      });
    });
    renderGrid();
    const first = cellAt(row, r);
    if (first) first.focus();
    saveState.textContent = `pasted ${lines.length} row${lines.length === 1 ? "" : "s"}` +
      (dropped ? `; ${dropped} value${dropped === 1 ? "" : "s"} past the last region left out` : "");
  });

  // ------------------------------------------------------------------ structural changes
  function addItem() {
    snapshot("add item");
    const last = state.items[state.items.length - 1];
    const number = Math.max(0, ...state.items.map((it) => it.number || 0)) + 1;
    state.items.push({number, cells: last.cells.map((row) => row.slice())});
    renderGrid();
    const first = grid.querySelector(`input.cell[data-i="${state.items.length - 1}"]`);
    if (first) first.focus();
  }
  function removeItem(i) {
    if (!window.confirm(`Remove item ${state.items[i].number} and its sentences? (Undo brings it back.)`)) return;
    snapshot(`remove item ${state.items[i].number}`);
    state.items.splice(i, 1);
    renderGrid();
  }
  function addCondition() {
    snapshot("add condition");
    let n = state.conditions.length + 1;
    while (state.conditions.includes(`condition_${n}`)) n++;
    state.conditions.push(`condition_${n}`);
    refNames.push(`condition_${n}`);
    for (const item of state.items) item.cells.push(item.cells[item.cells.length - 1].slice());
    renderGrid();
    checkAllFormulas();
  }
  function removeCondition(c) {
    const name = state.conditions[c];
    if (!window.confirm(`Remove condition "${name}" from every item? Predictions naming it will be flagged. ` +
                        "(Undo brings it back.)")) return;
    snapshot(`remove condition ${name}`);
    state.conditions.splice(c, 1);
    refNames.splice(c, 1);
    for (const item of state.items) item.cells.splice(c, 1);
    renderGrid();
    checkAllFormulas();
  }
  function addRegion() {
    snapshot("add region");
    state.regions.push(`region_${state.regions.length + 1}`);
    for (const item of state.items) for (const row of item.cells) row.push("");
    renderGrid();
    checkAllFormulas();
  }
  function removeRegion(r) {
    if (!window.confirm(`Remove region ${r + 1} "${state.regions[r]}" from every sentence? Later regions are ` +
                        "renumbered and predictions follow them; predictions on this region will be flagged. " +
                        "(Undo brings it back.)")) return;
    snapshot(`remove region ${r + 1}`);
    state.regions.splice(r, 1);
    for (const item of state.items) for (const row of item.cells) row.splice(r, 1);
    // old region number -> new one; the removed region becomes "?"
    renumberPredictions((number) => number === r + 1 ? "?" : number > r + 1 ? number - 1 : number);
    renderGrid();
  }
  function moveRegionLeft(r) {
    snapshot(`move region ${r + 1}`);
    const swap = (list) => { [list[r - 1], list[r]] = [list[r], list[r - 1]]; };
    swap(state.regions);
    for (const item of state.items) for (const row of item.cells) swap(row);
    renumberPredictions((number) => number === r + 1 ? r : number === r ? r + 1 : number);
    renderGrid();
  }

  // ------------------------------------------------------------------ predictions follow the grid
  // A region reference as the library's formula parser reads it (suites/formula.py): a region, a range (3..5) or a
  // list (3,5) of regions summed, or "*"; plus "?": a removed region.
  const REF = /\(\s*([0-9?]+(?:\s*(?:\.\.|,)\s*[0-9?]+)*|\*)\s*;\s*%([^%]*)%\s*\)/g;
  // The regions a reference's spec names, in order ("3..5" -> [3, 4, 5]; "?" stays "?").
  function specRegions(spec) {
    const regions = [];
    for (const part of spec.split(",")) {
      const [low, high] = part.split("..").map((s) => s.trim());
      if (high !== undefined && /^[0-9]+$/.test(low) && /^[0-9]+$/.test(high)) {
        for (let n = Number(low); n <= Number(high); n++) regions.push(n);
      } else {
        regions.push(/^[0-9]+$/.test(low) ? Number(low) : low);
        if (high !== undefined) regions.push(/^[0-9]+$/.test(high) ? Number(high) : high);
      }
    }
    return regions;
  }
  // A reference's spec after the regions moved: a range stays a range while its regions stay consecutive, else it
  // becomes the list of the same regions (a removed one is "?", which blocks Save until mended).
  function mapSpec(spec, map) {
    if (spec === "*") return spec;
    const mapped = specRegions(spec).map((n) => typeof n === "number" ? map(n) : n);
    const consecutive = mapped.every((n, i) => typeof n === "number" && (i === 0 || n === mapped[i - 1] + 1));
    return spec.includes("..") && consecutive ? `${mapped[0]}..${mapped[mapped.length - 1]}` : mapped.join(",");
  }
  function renumberPredictions(map) {
    state.predictions = state.predictions.map((formula) => formula.replace(REF, (whole, region, condition) =>
      region === "*" ? whole : `(${mapSpec(region, map)};%${condition}%)`));
    renderPredictions();
  }
  function followRename(c) {
    const name = state.conditions[c];
    const old = refNames[c];
    const clash = (value) => state.conditions.some((other, k) => k !== c && other === value);
    // while the typed name equals another condition's, wait: rewriting then would merge the two in the formulas
    if (name === old || clash(name) || clash(old)) return;
    refNames[c] = name;
    state.predictions.forEach((formula, p) => {
      const changed = formula.replace(REF, (whole, region, condition) =>
        condition === old ? `(${region};%${name}%)` : whole);
      if (changed === formula) return;
      state.predictions[p] = changed;
      const input = predictionList.querySelector(`input.formula[data-p="${p}"]`);
      if (input) input.value = changed;
      syncBuilder(p);
    });
  }
  // What the page itself knows is wrong with a formula: a removed region, a region or condition the suite lacks.
  function localProblems(formula) {
    const notes = [];
    for (const [, region, condition] of formula.matchAll(REF)) {
      const ref = `(${region};%${condition}%)`;
      const named = region === "*" ? [] : specRegions(region);
      if (named.includes("?")) {
        notes.push(`${ref} tested a region that was removed: write the region number it should test, ` +
                   "or remove this prediction");
      } else if (named.some((n) => !(n >= 1 && n <= state.regions.length))) {
        notes.push(`${ref} refers to region ${region}; this suite has regions 1..${state.regions.length}`);
      }
      if (!state.conditions.includes(condition)) {
        notes.push(`${ref} names condition "${condition}", which this suite does not have`);
      }
    }
    return [...new Set(notes)];
  }

  // ------------------------------------------------------------------ predictions, checked as you type
  const timers = new Map();
  function renderPredictions() {
    predictionList.replaceChildren();
    state.predictions.forEach((formula, p) => {
      const input = el("input", {type: "text", class: "formula", "data-p": p, spellcheck: "false",
                                 "aria-label": `prediction ${p}`});
      input.value = formula;
      const status = el("div", {class: "formula-status", "data-p": p, "aria-live": "polite"});
      input.addEventListener("input", () => { state.predictions[p] = input.value; syncBuilder(p); scheduleCheck(p); });
      predictionList.append(el("li", {}, el("div", {class: "formula-row"}, input,
        removeButton(`remove prediction ${p}`, () => removePrediction(p))), builderFor(p), toleranceFor(p), status));
      syncBuilder(p);
      scheduleCheck(p, 0);
    });
  }
  // A prediction's own tolerance (atol, rtol beside its formula in the suite): empty uses the run's.
  const TOLERANCE_NOTE = "a number of at least 0, or empty for the run's";
  function toleranceFor(p) {
    const box = el("div", {class: "tolerance small muted", "data-p": p},
      el("span", {text: "own tolerance for =, <=, >=, != (optional):"}));
    for (const [key, unit] of [["atol", "bits"], ["rtol", "× |right side|"]]) {
      const input = el("input", {type: "text", class: `b-${key}`, inputmode: "decimal", size: "6", spellcheck: "false",
                                 placeholder: "run's", "aria-label": `prediction ${p}: own ${key} (${unit})`,
                                 title: `${key}: ${TOLERANCE_NOTE}`});
      const given = state.predictionExtras[p][key];
      input.value = given === undefined ? "" : String(given);
      input.addEventListener("input", () => {
        const text = input.value.trim();
        const value = text === "" ? undefined : numberValue(text);
        input.classList.toggle("invalid", value === null || value < 0);
        if (value === null || value < 0) return;
        if (value === undefined) delete state.predictionExtras[p][key]; else state.predictionExtras[p][key] = value;
        scheduleCheck(p);
      });
      box.append(el("label", {}, document.createTextNode(`${key} `), input));
    }
    return box;
  }
  function removePrediction(p) {
    if (state.predictions[p].trim() && !window.confirm(`Remove prediction ${p}? (Undo brings it back.)`)) return;
    snapshot(`remove prediction ${p}`);
    state.predictions.splice(p, 1);
    state.predictionExtras.splice(p, 1);
    renderPredictions();
  }
  function scheduleCheck(p, delay = 250) {
    clearTimeout(timers.get(p));
    timers.set(p, setTimeout(() => checkFormula(p), delay));
  }
  function checkAllFormulas() {
    // the builders too: their lists hold the suite's region and condition names
    state.predictions.forEach((_, p) => { syncBuilder(p); scheduleCheck(p, 400); });
  }

  async function checkFormula(p) {
    const formula = state.predictions[p];
    const status = predictionList.querySelector(`.formula-status[data-p="${p}"]`);
    const input = predictionList.querySelector(`input.formula[data-p="${p}"]`);
    if (!status || formula === undefined) return;
    const local = localProblems(formula);
    if (local.length) {  // flagged at once, without asking the server
      input.classList.add("invalid");
      status.className = "formula-status bad";
      status.replaceChildren(...local.map((note) => el("div", {text: `✗ ${note}`})));
      return;
    }
    let answer;
    try {
      const response = await fetch("/api/formula", {method: "POST", headers: {"Content-Type": "application/json",
        "X-CSRF-Token": csrf}, body: JSON.stringify({formula, conditions: state.conditions, regions: state.regions.length})});
      answer = await response.json();
    } catch (error) {
      status.className = "formula-status muted";
      status.textContent = "cannot reach the server to check this formula";
      return;
    }
    if (state.predictions[p] !== formula) return; // typed on since
    status.replaceChildren();
    input.classList.toggle("invalid", !answer.ok);
    if (answer.ok) {
      status.className = "formula-status ok";
      status.append(el("span", {text: "✓ "}), el("code", {text: answer.canonical}));
      // what SyntaxGym's own tools could not read (the library's note), and an own tolerance they would ignore
      const own = ["atol", "rtol"].filter((key) => state.predictionExtras[p][key] !== undefined);
      const peers = [answer.peers, own.length ? `has its own ${own.join(" and ")}: syntaxgym-core and the ` +
                     "syntaxgym.org website would ignore it and use their own tolerance" : null].filter(Boolean);
      for (const note of peers) status.append(el("div", {class: "peer-note muted", text: `Note: ${note}`}));
    } else if (answer.reason !== undefined) {
      status.className = "formula-status bad";
      const at = Math.min(answer.position, formula.length);
      const shown = el("code", {class: "pointer"}, document.createTextNode(formula.slice(0, at)),
        el("mark", {text: formula.slice(at, at + 1) || " "}), document.createTextNode(formula.slice(at + 1)));
      status.append(el("span", {text: `✗ ${answer.reason} (character ${at + 1})`}), el("br"), shown);
    } else {
      status.className = "formula-status bad";
      for (const note of answer.notes || [answer.error || "invalid"]) status.append(el("div", {text: `✗ ${note}`}));
    }
  }

  // ------------------------------------------------------------------ the guided builder beside each formula
  // Its controls write the formula's canonical text; a typed formula of the builder's shape moves them, any other is a
  // "custom formula" left alone. A region or condition the suite lacks stays selected, marked, until replaced.
  // A comparison: [side] [relation] [side] [not]; a side: a term (regions of a condition, summed or as one reference
  // N..M), optionally times a number, or a difference of two terms, its absolute value, or a number (its "form").
  const {RELATIONS, formulaText, readFormula, numberValue} = window.PredictionBuilder;
  const SIDES = ["left", "right"];
  // the form select: [value, label, the side's shape, whether it has a factor]
  const FORMS = [["term", "regions", "term", false], ["scaled", "n × regions", "term", true],
                 ["difference", "difference", "difference", false],
                 ["scaled-difference", "n × difference", "difference", true],
                 ["abs", "abs(difference)", "abs", false], ["number", "a number", "number", false]];
  const builderBox = (p) => predictionList.querySelector(`.builder[data-p="${p}"]`);
  const indexIn = (node) => [...node.parentNode.children].indexOf(node);

  function builderFor(p) {
    return el("div", {class: "builder", "data-p": p, role: "group", "aria-label": `prediction ${p}: builder`},
      el("div", {class: "b-comparisons"}),
      el("button", {type: "button", class: "b-and", text: "+ and",
                    "aria-label": `prediction ${p}: add a comparison (and)`,
                    title: "add another comparison that must hold too", onclick: () => addComparison(p)}),
      el("span", {class: "b-custom muted small"}, el("span", {class: "b-custom-text"}),
        el("button", {type: "button", class: "b-build", onclick: () => buildInstead(p)})));
  }
  function comparisonControls(p) {
    const row = el("div", {class: "b-comparison", role: "group"});
    const relation = el("select", {class: "b-relation", onchange: () => builderChanged(p)});
    for (const {op, label} of RELATIONS) relation.add(new Option(label, op));
    const not = el("input", {type: "checkbox", class: "b-not", onchange: () => builderChanged(p)});
    row.append(el("span", {class: "b-word b-lead"}), sideControls(p, "left"), relation, sideControls(p, "right"),
      el("label", {class: "b-not-label", title: "the comparison must not hold: !( ... )"}, not,
         document.createTextNode(" not")),
      el("button", {type: "button", class: "remove b-drop", text: "×", title: "remove this comparison",
                    onclick: () => removeComparison(p, indexIn(row))}));
    return row;
  }
  function numberBox(p, kind) {
    const box = el("input", {type: "text", class: kind, inputmode: "decimal", size: "5", spellcheck: "false"});
    box.addEventListener("input", () => {
      const ok = numberValue(box.value) !== null;
      box.classList.toggle("invalid", !ok);
      if (ok) box.dataset.good = box.value;
      if (ok) builderChanged(p);  // a number being typed ("-", "1e") waits: the formula keeps its last good one
    });
    return box;
  }
  function sideControls(p, side) {
    const form = el("select", {class: "b-form", onchange: () => formChanged(p, form)});
    for (const [value, label] of FORMS) form.add(new Option(label, value));
    return el("span", {class: "b-side", "data-side": side}, numberBox(p, "b-number"),
      el("span", {class: "b-scaled"}, numberBox(p, "b-scale"), el("span", {class: "b-word", text: "×"})),
      el("span", {class: "b-word b-abs", text: "abs("}), termControls(p, 0),
      el("span", {class: "b-word b-minus", text: "−"}), termControls(p, 1),
      el("span", {class: "b-word b-abs", text: ")"}), form);
  }
  function termControls(p, t) {
    const term = el("span", {class: "b-term", "data-t": t}, el("span", {class: "b-regions"}));
    const list = el("input", {type: "checkbox", class: "b-list", onchange: () => builderChanged(p)});
    term.append(el("button", {type: "button", class: "b-add", text: "+ region", onclick: () => addTermRegion(p, term)}),
      el("span", {class: "b-word", text: "of"}),
      el("select", {class: "b-condition", onchange: () => builderChanged(p)}),
      el("label", {class: "b-list-label small", title: "write the regions as one reference, (3..5;%c%), rather than " +
                   "a sum (3;%c%) + (4;%c%) + (5;%c%): the same value"}, list, document.createTextNode(" as N..M")));
    return term;
  }
  function regionControl(p) {
    const wrap = el("span", {class: "b-region"});
    wrap.append(el("span", {class: "b-word b-plus", text: "+"}), el("select", {onchange: () => builderChanged(p)}),
      el("button", {type: "button", class: "remove", text: "×", title: "remove this region from the sum",
                    onclick: () => removeTermRegion(p, wrap)}));
    return wrap;
  }
  // Keep `count` children made by `make`, adding or dropping at the end (so that focus stays where it is).
  function resize(list, count, make) {
    while (list.children.length > count) list.lastChild.remove();
    while (list.children.length < count) list.append(make());
    return [...list.children];
  }
  // A select of the suite's values, plus the formula's value marked when the suite lacks it.
  function setSelect(select, pairs, current, missing) {
    const known = pairs.some(([value]) => value === current);
    select.replaceChildren(...(known ? [] : [new Option(missing, current)]),
                           ...pairs.map(([value, label]) => new Option(label, value)));
    select.value = current;
    select.classList.toggle("invalid", !known);
  }
  // A number box shows the formula's number, but not over one being typed that means the same.
  function setNumber(box, text) {
    box.dataset.good = text;
    if (document.activeElement === box && numberValue(box.value) === numberValue(text)) return;
    box.value = text;
    box.classList.remove("invalid");
  }
  const formOf = (value) => {
    const shape = value.shape || "term";
    return FORMS.find(([, , s, scaled]) => s === shape && scaled === (value.scale !== undefined))[0];
  };

  function syncBuilder(p) {
    const box = builderBox(p);
    if (!box) return;
    const formula = state.predictions[p];
    const comparisons = readFormula(formula);
    box.querySelector(".b-custom").hidden = Boolean(comparisons);
    const and = box.querySelector(".b-and");
    and.hidden = !comparisons;
    const count = comparisons ? comparisons.length : 0;
    if (and.parentNode !== box && indexIn(and.parentNode) >= count) box.append(and);  // out of a row about to go
    if (!comparisons) {
      const empty = !formula.trim();
      box.querySelector(".b-custom-text").textContent = empty ? "No formula yet: type one, or " :
        "Custom formula (the builder shows comparisons, joined by &, of a side that is regions of one condition, " +
        "a difference of two such, its absolute value or a number): edit it in the box, or ";
      const button = box.querySelector(".b-build");
      button.textContent = empty ? "use the builder" : "replace it with a built one";
      button.setAttribute("aria-label", `prediction ${p}: ${button.textContent}`);
      resize(box.querySelector(".b-comparisons"), 0);
      return;
    }
    const regionPairs = state.regions.map((name, r) => [String(r + 1), `${r + 1} ${name}`.trim()]);
    regionPairs.push(["*", "* whole sentence"]);
    const conditionPairs = state.conditions.map((name) => [name, name]);
    const rows = resize(box.querySelector(".b-comparisons"), comparisons.length, () => comparisonControls(p));
    rows.forEach((row, k) => {
      const comparison = comparisons[k];
      const prefix = comparisons.length > 1 ? `prediction ${p}, comparison ${k + 1}` : `prediction ${p}`;
      row.setAttribute("aria-label", prefix);
      row.querySelector(".b-lead").textContent = k ? "and" : "";
      const relation = row.querySelector(".b-relation");
      relation.value = comparison.relation;
      relation.setAttribute("aria-label", `${prefix}: relation`);
      const not = row.querySelector(".b-not");
      not.checked = Boolean(comparison.not);
      not.setAttribute("aria-label", `${prefix}: not (the comparison must not hold)`);
      const drop = row.querySelector(".b-drop");
      drop.hidden = comparisons.length < 2;
      drop.setAttribute("aria-label", `${prefix}: remove this comparison`);
      if (k === rows.length - 1 && and.parentNode !== row) row.append(and);  // "+ and" ends the last comparison
      for (const side of SIDES) syncSide(p, row.querySelector(`.b-side[data-side="${side}"]`), comparison[side],
                                         `${prefix}, ${side} side`, regionPairs, conditionPairs);
    });
  }
  function syncSide(p, node, value, label, regionPairs, conditionPairs) {
    const shape = value.shape || "term";
    const form = node.querySelector(".b-form");
    form.value = formOf(value);
    form.setAttribute("aria-label", `${label}: form`);
    const number = node.querySelector(".b-number");
    number.hidden = shape !== "number";
    number.setAttribute("aria-label", `${label}: number`);
    if (shape === "number") setNumber(number, value.number);
    node.querySelector(".b-scaled").hidden = value.scale === undefined;
    const scale = node.querySelector(".b-scale");
    scale.setAttribute("aria-label", `${label}: times (a number)`);
    if (value.scale !== undefined) setNumber(scale, value.scale);
    node.querySelectorAll(".b-abs").forEach((word) => { word.hidden = shape !== "abs"; });
    node.querySelector(".b-minus").hidden = shape === "term" || shape === "number";
    const terms = shape === "term" ? [value] : shape === "number" ? [] : value.terms;
    node.querySelectorAll(".b-term").forEach((term, t) => {
      term.hidden = t >= terms.length;
      if (t < terms.length) syncTerm(p, term, terms[t], t ? `${label}, subtracted` : label, regionPairs, conditionPairs);
    });
  }
  function syncTerm(p, term, value, label, regionPairs, conditionPairs) {
    const {regions, condition} = value;
    const wraps = resize(term.querySelector(".b-regions"), regions.length, () => regionControl(p));
    wraps.forEach((wrap, i) => {
      const name = `${label}: region` + (regions.length > 1 ? ` ${i + 1} of the sum` : "");
      const select = wrap.querySelector("select");
      select.setAttribute("aria-label", name);
      setSelect(select, regionPairs, regions[i], regions[i] === "?" ? "? removed region" : `${regions[i]} (no such region)`);
      wrap.querySelector(".b-plus").hidden = i === 0;
      const remove = wrap.querySelector("button.remove");
      remove.hidden = regions.length < 2;
      remove.setAttribute("aria-label", `${name}: remove it from the sum`);
    });
    term.querySelector(".b-add").setAttribute("aria-label", `${label}: add a region to the sum`);
    const select = term.querySelector(".b-condition");
    select.setAttribute("aria-label", `${label}: condition`);
    setSelect(select, conditionPairs, condition, `${condition} (not in this suite)`);
    const list = term.querySelector(".b-list");
    list.checked = Boolean(value.list);
    list.setAttribute("aria-label", `${label}: as one reference (N..M)`);
    term.querySelector(".b-list-label").hidden = regions.length < 2 || regions.includes("*");
  }
  function readTermControls(node) {
    const term = {regions: [...node.querySelectorAll(".b-region select")].map((select) => select.value),
                  condition: node.querySelector(".b-condition").value};
    if (node.querySelector(".b-list").checked) term.list = true;
    return term;
  }
  function readSideControls(node) {
    const [, , shape, scaled] = FORMS.find(([value]) => value === node.querySelector(".b-form").value);
    // a number box holding what is no number (yet) counts as its last good number
    const number = (box) => numberValue(box.value) !== null ? box.value : box.dataset.good || "";
    if (shape === "number") return {shape, number: number(node.querySelector(".b-number"))};
    const terms = [...node.querySelectorAll(".b-term")].map(readTermControls);
    const value = shape === "term" ? terms[0] : {shape, terms};
    if (scaled) value.scale = number(node.querySelector(".b-scale"));
    return value;
  }
  function readBuilder(p) {
    return [...builderBox(p).querySelectorAll(".b-comparison")].map((row) => {
      const comparison = {left: readSideControls(row.querySelector('.b-side[data-side="left"]')),
                          relation: row.querySelector(".b-relation").value,
                          right: readSideControls(row.querySelector('.b-side[data-side="right"]'))};
      if (row.querySelector(".b-not").checked) comparison.not = true;
      return comparison;
    });
  }
  function builderChanged(p, comparisons = readBuilder(p)) {
    setFormula(p, formulaText(comparisons));
    markDirty(true);
  }
  // A new form: what it needs and the side lacks is filled in (a second term, a factor of 2, the number 0).
  function formChanged(p, form) {
    const {row, k, side} = place(form);
    const comparisons = readBuilder(p);
    const value = comparisons[k][side];
    const usable = (term) => term.regions.length > 0 && term.condition !== "";
    if (value.shape === "number") {
      if (numberValue(value.number) === null) value.number = "0";
    } else {
      const terms = value.terms || [value];
      if (!usable(terms[0])) Object.assign(terms[0], {regions: ["1"], condition: state.conditions[0]});
      if (value.terms && !usable(terms[1])) {
        const other = state.conditions.find((name) => name !== terms[0].condition);
        terms[1] = {...terms[0], regions: terms[0].regions.slice(), condition: other ?? terms[0].condition};
      }
      if (value.scale !== undefined && numberValue(value.scale) === null) value.scale = "2";
    }
    builderChanged(p, comparisons);
    row.querySelector(`.b-side[data-side="${side}"] .b-form`).focus();
  }
  // the first control of a comparison that is shown (a side may hide its region lists)
  const firstControl = (row) => [...row.querySelectorAll("select, input")].find((node) => node.offsetParent !== null);
  function setFormula(p, formula) {
    state.predictions[p] = formula;
    predictionList.querySelector(`input.formula[data-p="${p}"]`).value = formula;
    syncBuilder(p);
    scheduleCheck(p, 0);
  }
  // where a control sits: its comparison's index and, inside a side, the side and the term
  function place(node) {
    const row = node.closest(".b-comparison");
    const sideNode = node.closest(".b-side");
    const term = node.closest(".b-term");
    return {row, k: indexIn(row), side: sideNode && sideNode.dataset.side, t: term ? Number(term.dataset.t) : 0};
  }
  function termOf(comparisons, k, side, t) {
    const value = comparisons[k][side];
    return value.terms ? value.terms[t] : value;
  }
  const termSelects = (row, side, t) =>
    row.querySelectorAll(`.b-side[data-side="${side}"] .b-term[data-t="${t}"] .b-region select`);
  function addTermRegion(p, node) {
    const {row, k, side, t} = place(node);
    const comparisons = readBuilder(p);
    const regions = termOf(comparisons, k, side, t).regions;
    const last = Number(regions[regions.length - 1]);
    regions.push(String(last >= 1 && last < state.regions.length ? last + 1 : 1));  // the next region, by default
    builderChanged(p, comparisons);
    const selects = termSelects(row, side, t);
    selects[selects.length - 1].focus();
  }
  function removeTermRegion(p, wrap) {
    const {row, k, side, t} = place(wrap);
    const i = indexIn(wrap);
    const comparisons = readBuilder(p);
    termOf(comparisons, k, side, t).regions.splice(i, 1);
    builderChanged(p, comparisons);
    termSelects(row, side, t)[Math.max(0, i - 1)].focus();
  }
  function addComparison(p) {
    const comparisons = readBuilder(p);
    comparisons.push(JSON.parse(JSON.stringify(comparisons[comparisons.length - 1])));  // a copy to change
    builderChanged(p, comparisons);
    const rows = builderBox(p).querySelectorAll(".b-comparison");
    firstControl(rows[rows.length - 1]).focus();
  }
  function removeComparison(p, k) {
    const comparisons = readBuilder(p);
    comparisons.splice(k, 1);
    builderChanged(p, comparisons);
    firstControl(builderBox(p).querySelectorAll(".b-comparison")[Math.max(0, k - 1)]).focus();
  }
  function buildInstead(p) {
    const formula = state.predictions[p];
    if (formula.trim() && !window.confirm(`Replace prediction ${p}, ${formula}, with a built one? ` +
                                          "(Undo brings it back.)")) return;
    snapshot(`build prediction ${p}`);
    const c = state.conditions;
    setFormula(p, formulaText([{left: {regions: ["1"], condition: c[c.length > 1 ? 1 : 0]}, relation: ">",
                                right: {regions: ["1"], condition: c[0]}}]));
    builderBox(p).querySelector(".b-region select").focus();
  }

  // ------------------------------------------------------------------ drafts kept in the browser
  // Unsaved edits are kept in this browser's localStorage (per server origin, as every page's storage is; per user
  // and per page: a new suite, or a version of one), so that following "Sign in", a closed tab or a crash loses
  // nothing. A draft written signed out is taken over by whoever signs in next in this browser: the text was typed
  // here, and anyone at this browser could read it signed out. Saving or "Discard draft" removes it.
  const draftNote = document.getElementById("draft-note");
  const draftKey = (user) => `linguagym.draft.v1:${user}:${draftNote.dataset.draft}`;
  const me = draftNote.dataset.user;
  const store = {  // localStorage can be off or full: then drafts are simply not kept
    get(key) { try { return JSON.parse(window.localStorage.getItem(key)); } catch (error) { return null; } },
    set(key, value) {
      try { window.localStorage.setItem(key, JSON.stringify(value)); return true; } catch (error) { return false; }
    },
    remove(key) { try { window.localStorage.removeItem(key); } catch (error) { /* nothing kept */ } },
  };
  let draftTimer = null;
  function draft() {
    const {regions, conditions, items, predictions, predictionExtras} = state;
    return {version: 1, savedAt: new Date().toISOString(), metricChoice: metricSelect.value,
            state: {regions, conditions, items, predictions, predictionExtras, metric: state.metric},
            refNames, fields: {name: nameInput.value, author: authorInput.value, reference: referenceInput.value,
                               note: document.getElementById("save-note").value}};
  }
  function keepDraft() {
    clearTimeout(draftTimer);
    return dirty && store.set(draftKey(me), draft());
  }
  function scheduleDraft() {
    clearTimeout(draftTimer);
    draftTimer = setTimeout(keepDraft, 300);
  }
  function dropDraft() {
    clearTimeout(draftTimer);
    store.remove(draftKey(me));
  }
  function restoreDraft() {
    let kept = store.get(draftKey(me));
    let adopted = false;
    if (!kept && me) {  // written before signing in, in this browser: it is now this user's
      kept = store.get(draftKey(""));
      adopted = Boolean(kept);
    }
    if (!kept || kept.version !== 1 || !kept.state) return;
    const before = JSON.stringify(suiteJson());
    Object.assign(state, kept.state);
    refNames = kept.refNames || state.conditions.slice();
    nameInput.value = kept.fields.name;
    authorInput.value = kept.fields.author;
    referenceInput.value = kept.fields.reference;
    document.getElementById("save-note").value = kept.fields.note || "";
    if ([...metricSelect.options].some((option) => option.value === kept.metricChoice)) {
      metricSelect.value = kept.metricChoice;
    }
    if (adopted) {
      store.set(draftKey(me), kept);
      store.remove(draftKey(""));
    }
    if (JSON.stringify(suiteJson()) === before && !kept.fields.note) {  // nothing differs: no draft to speak of
      dropDraft();
      return;
    }
    dirty = true;
    saveState.textContent = "unsaved changes (restored draft)";
    const when = new Date(kept.savedAt);
    draftNote.replaceChildren(
      document.createTextNode(`Restored your unsaved draft from ${when.toLocaleString()}` +
        `${adopted ? ", written before you signed in" : ""}: it is kept in this browser until you save it. `),
      el("button", {type: "button", id: "discard-draft", text: "Discard draft", onclick: discardDraft}));
    draftNote.hidden = false;
  }
  function discardDraft() {
    if (!window.confirm("Discard the draft and show the suite as it was last saved?")) return;
    dropDraft();
    dirty = false;
    window.location.reload();
  }
  // following a sign-in link: keep the draft now, and leave without asking
  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest('a[href*="/login"]');
    if (link && keepDraft()) leavingToSignIn = true;
  });

  // ------------------------------------------------------------------ save
  function suiteJson() {
    const meta = {name: nameInput.value.trim()};
    meta.metric = metricSelect.value === "__list__" ? state.metric : metricSelect.value;
    Object.assign(meta, state.extra);
    for (const [key, input] of [["author", authorInput], ["reference", referenceInput]]) {
      if (input.value.trim()) meta[key] = input.value.trim(); else delete meta[key];
    }
    return {
      meta,
      region_meta: Object.fromEntries(state.regions.map((name, r) => [String(r + 1), name])),
      predictions: state.predictions.map((formula, p) => ({type: "formula", formula, ...state.predictionExtras[p]}))
        .filter((prediction) => prediction.formula.trim()),
      items: state.items.map((item) => ({
        item_number: item.number,
        conditions: state.conditions.map((name, c) => ({
          condition_name: name,
          regions: state.regions.map((_, r) => ({region_number: r + 1, content: item.cells[c][r]})),
        })),
      })),
    };
  }

  function target(location) {
    let m = location.match(/^items\[(\d+)\]\.conditions\[(\d+)\]\.regions\[(\d+)\]/);
    if (m) return grid.querySelector(`input.cell[data-i="${m[1]}"][data-c="${m[2]}"][data-r="${m[3]}"]`);
    m = location.match(/^items\[(\d+)\]\.conditions\[(\d+)\]/);
    if (m) return grid.querySelector(`input.cond-name[data-c="${m[2]}"]`);
    m = location.match(/^items\[(\d+)\]/);
    if (m) return grid.querySelector(`input.item-number[data-i="${m[1]}"]`);
    m = location.match(/^predictions\[(\d+)\]\.(atol|rtol)/);
    if (m) return predictionList.querySelector(`.tolerance[data-p="${m[1]}"] input.b-${m[2]}`);
    m = location.match(/^predictions\[(\d+)\]/);
    if (m) return predictionList.querySelector(`input.formula[data-p="${m[1]}"]`);
    if (location.startsWith("meta.name")) return nameInput;
    if (location.startsWith("meta")) return metricSelect;
    if (location.startsWith("region_meta")) return grid.querySelector("input.region-name");
    return null;
  }

  function showProblems(problems) {
    document.querySelectorAll(".invalid").forEach((n) => n.classList.remove("invalid"));
    problemsBox.replaceChildren(el("h3", {text: `Not saved: ${problems.length} problem${problems.length === 1 ? "" : "s"}`}));
    const list = el("ul");
    for (const problem of problems) {
      const node = target(problem.location || "");
      if (node) node.classList.add("invalid");
      const item = el("li", {}, problem.location ? el("code", {class: "path", text: problem.location}) : null,
                      document.createTextNode(" " + problem.message));
      if (problem.detail) item.append(el("pre", {text: problem.detail}));
      if (node) {
        item.classList.add("clickable");
        item.addEventListener("click", () => { node.focus(); node.scrollIntoView({block: "center"}); });
      }
      list.append(item);
    }
    problemsBox.append(list);
    problemsBox.hidden = false;
    problemsBox.scrollIntoView({block: "start"});
  }

  async function save() {
    const stale = [];
    predictionList.querySelectorAll(".tolerance input.invalid").forEach((input) => {
      const key = input.classList.contains("b-atol") ? "atol" : "rtol";
      stale.push({location: `predictions[${input.closest(".tolerance").dataset.p}].${key}`,
                  message: `${key} is ${TOLERANCE_NOTE}`});
    });
    state.predictions.forEach((formula, p) => {
      for (const note of localProblems(formula)) stale.push({location: `predictions[${p}]`, message: note});
    });
    if (stale.length) {  // a prediction on a removed region or condition would test the wrong thing, or nothing
      showProblems(stale);
      return;
    }
    const button = document.getElementById("save");
    button.disabled = true;
    try {
      const response = await fetch("/api/suites", {method: "POST", headers: {"Content-Type": "application/json",
        "X-CSRF-Token": csrf}, body: JSON.stringify({suite: suiteJson(), note: document.getElementById("save-note").value})});
      let answer;
      try { answer = await response.json(); } catch (e) { answer = {ok: false, problems: [{message: `the server answered ${response.status}`}]}; }
      if (answer.ok) { dirty = false; dropDraft(); window.location.assign(answer.url); return; }
      showProblems(answer.problems || [{location: "", message: answer.error || "could not save"}]);
    } catch (error) {
      showProblems([{location: "", message: "cannot reach the server; your edits are still here, try again"}]);
    } finally {
      button.disabled = false;
    }
  }

  document.getElementById("add-item").addEventListener("click", addItem);
  document.getElementById("add-condition").addEventListener("click", addCondition);
  document.getElementById("add-region").addEventListener("click", addRegion);
  document.getElementById("add-prediction").addEventListener("click", () => {
    snapshot("add prediction");
    const c = state.conditions;
    state.predictions.push(c.length > 1 ? `(1;%${c[1]}%) > (1;%${c[0]}%)` : "");
    state.predictionExtras.push({});
    renderPredictions();
    const inputs = predictionList.querySelectorAll("input.formula");
    inputs[inputs.length - 1].focus();
  });
  document.getElementById("save").addEventListener("click", save);
  undoButton.addEventListener("click", undo);
  restoreDraft();
  renderGrid();
  renderPredictions();
})();
