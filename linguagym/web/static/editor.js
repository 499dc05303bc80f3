// The suite editor: a grid of text boxes (rows are sentences, columns regions), live formula checks, save.
// All text is put into the page with textContent / value, never as HTML.
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const data = JSON.parse(document.getElementById("suite-data").textContent);
  const grid = document.getElementById("grid");
  const predictionList = document.getElementById("predictions");
  const problemsBox = document.getElementById("problems");

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
  if (!state.items.length) state.items.push({number: 1, cells: state.conditions.map(() => state.regions.map(() => ""))});

  function websiteFormula(p) {
    const op = {lessthan: "<", greaterthan: ">", equals: "="}[p.relation] || "<";
    return `(${p.region_number};%${p.l_operand}%) ${op} (${p.region_number};%${p.r_operand}%)`;
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

  function removeButton(label, action) {
    return el("button", {type: "button", class: "remove", title: label, "aria-label": label, text: "×",
                         onclick: action});
  }

  function renderGrid() {
    grid.replaceChildren();
    const head = el("tr", {}, el("th", {text: "item"}), el("th", {text: "condition"}));
    state.regions.forEach((name, r) => {
      const input = el("input", {type: "text", class: "region-name", "data-r": r, "aria-label": `name of region ${r + 1}`});
      input.value = name;
      input.addEventListener("input", () => { state.regions[r] = input.value; checkAllFormulas(); });
      head.append(el("th", {}, el("span", {class: "rnum", text: String(r + 1)}), input,
        state.regions.length > 1 ? removeButton(`remove region ${r + 1}`, () => removeRegion(r)) : null));
    });
    grid.append(el("thead", {}, head));
    state.items.forEach((item, i) => {
      const body = el("tbody", {class: "item"});
      state.conditions.forEach((condition, c) => {
        const row = el("tr");
        if (c === 0) {
          const number = el("input", {type: "number", class: "item-number", min: "0", "data-i": i,
                                      "aria-label": `number of item ${i + 1}`});
          number.value = item.number;
          number.addEventListener("input", () => { item.number = Number(number.value); });
          row.append(el("th", {rowspan: state.conditions.length, class: "inum"}, number,
            state.items.length > 1 ? removeButton(`remove item ${item.number}`, () => removeItem(i)) : null));
        }
        const nameInput = el("input", {type: "text", class: `cond-name c${c % 8}`, "data-c": c,
                                       "aria-label": `name of condition ${c + 1}`});
        nameInput.value = condition;
        nameInput.addEventListener("input", () => {
          state.conditions[c] = nameInput.value;
          grid.querySelectorAll(`input.cond-name[data-c="${c}"]`).forEach((other) => {
            if (other !== nameInput) other.value = nameInput.value;
          });
          checkAllFormulas();
        });
        row.append(el("td", {class: "cond"}, nameInput,
          state.conditions.length > 1 && i === 0 ? removeButton(`remove condition ${condition}`, () => removeCondition(c)) : null));
        state.regions.forEach((_, r) => {
          const cell = el("input", {type: "text", class: "cell", "data-i": i, "data-c": c, "data-r": r,
                                    "aria-label": `item ${item.number}, ${condition}, region ${r + 1}`});
          cell.value = item.cells[c][r];
          cell.addEventListener("input", () => { item.cells[c][r] = cell.value; cell.classList.remove("invalid"); });
          row.append(el("td", {}, cell));
        });
        body.append(row);
      });
      grid.append(body);
    });
  }

  function addItem() {
    const last = state.items[state.items.length - 1];
    const number = Math.max(0, ...state.items.map((it) => it.number || 0)) + 1;
    state.items.push({number, cells: last.cells.map((row) => row.slice())});
    renderGrid();
    const first = grid.querySelector(`input.cell[data-i="${state.items.length - 1}"]`);
    if (first) first.focus();
  }
  function removeItem(i) { state.items.splice(i, 1); renderGrid(); }
  function addCondition() {
    let n = state.conditions.length + 1;
    while (state.conditions.includes(`condition_${n}`)) n++;
    state.conditions.push(`condition_${n}`);
    for (const item of state.items) item.cells.push(item.cells[item.cells.length - 1].slice());
    renderGrid();
    checkAllFormulas();
  }
  function removeCondition(c) {
    state.conditions.splice(c, 1);
    for (const item of state.items) item.cells.splice(c, 1);
    renderGrid();
    checkAllFormulas();
  }
  function addRegion() {
    state.regions.push(`region_${state.regions.length + 1}`);
    for (const item of state.items) for (const row of item.cells) row.push("");
    renderGrid();
    checkAllFormulas();
  }
  function removeRegion(r) {
    state.regions.splice(r, 1);
    for (const item of state.items) for (const row of item.cells) row.splice(r, 1);
    renderGrid();
    checkAllFormulas();
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
      input.addEventListener("input", () => { state.predictions[p] = input.value; scheduleCheck(p); });
      predictionList.append(el("li", {}, el("div", {class: "formula-row"}, input,
        removeButton(`remove prediction ${p}`, () => { state.predictions.splice(p, 1); renderPredictions(); })), status));
      scheduleCheck(p, 0);
    });
  }
  function scheduleCheck(p, delay = 250) {
    clearTimeout(timers.get(p));
    timers.set(p, setTimeout(() => checkFormula(p), delay));
  }
  function checkAllFormulas() { state.predictions.forEach((_, p) => scheduleCheck(p, 400)); }

  async function checkFormula(p) {
    const formula = state.predictions[p];
    const status = predictionList.querySelector(`.formula-status[data-p="${p}"]`);
    const input = predictionList.querySelector(`input.formula[data-p="${p}"]`);
    if (!status || formula === undefined) return;
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
      predictions: state.predictions.filter((f) => f.trim()).map((formula) => ({type: "formula", formula})),
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
    const button = document.getElementById("save");
    button.disabled = true;
    try {
      const response = await fetch("/api/suites", {method: "POST", headers: {"Content-Type": "application/json",
        "X-CSRF-Token": csrf}, body: JSON.stringify({suite: suiteJson(), note: document.getElementById("save-note").value})});
      let answer;
      try { answer = await response.json(); } catch (e) { answer = {ok: false, problems: [{message: `the server answered ${response.status}`}]}; }
      if (answer.ok) { window.location.assign(answer.url); return; }
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
    const c = state.conditions;
    state.predictions.push(c.length > 1 ? `(1;%${c[1]}%) > (1;%${c[0]}%)` : "");
    renderPredictions();
    const inputs = predictionList.querySelectorAll("input.formula");
    inputs[inputs.length - 1].focus();
  });
  document.getElementById("save").addEventListener("click", save);
  renderGrid();
  renderPredictions();
})();
