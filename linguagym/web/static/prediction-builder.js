// The guided prediction builder's formula text, in both directions, with no page in it (the editor draws it).
// A built prediction is one comparison, or several joined by "&", each possibly negated ("not": !( )). A comparison
// has a side on each side of its relation (> < = >= <= !=). A side is, by its "shape":
//   term (the default, no shape written): one region, a sum of regions or a range/list of regions, of one condition,
//     optionally times a number:  {regions: ["6", "7"], condition: "plaus"}   {regions: ["3", "4", "5"],
//     condition: "c", list: true}  (one reference, (3..5;%c%))   {regions: ["5"], condition: "c", scale: "2"}
//   difference: one term minus another, optionally times a number: {shape: "difference", terms: [A, B], scale: "-0.5"}
//   abs: the absolute difference of two terms: {shape: "abs", terms: [A, B]}
//   number: {shape: "number", number: "0.5"}
//   e.g. [{left: {regions: ["6", "7"], condition: "plaus"}, relation: "<",
//          right: {regions: ["6", "7"], condition: "implaus"}}]
// formulaText writes the text linguagym.suites.formula.format_formula prints for that tree (tests/web/
// test_prediction_builder.py parses every form with the library); readFormula reads a formula back when it has
// that shape, else null (a "custom formula"). Fields at their defaults are left out of what readFormula returns.
"use strict";
(function (root) {
  // "=" (and <=, >=, !=) hold within the tolerance: the run's (1e-3 bits by default) or the prediction's own.
  const RELATIONS = [
    {op: ">", label: "> is greater than"},
    {op: "<", label: "< is less than"},
    {op: "=", label: "= equals (within tolerance)"},
    {op: ">=", label: ">= is at least (within tolerance)"},
    {op: "<=", label: "<= is at most (within tolerance)"},
    {op: "!=", label: "!= differs (beyond tolerance)"},
  ];
  const SHAPES = ["term", "difference", "abs", "number"];

  // ------------------------------------------------------------------ numbers, as the library prints them
  // The text of a number as Python's repr writes a float (linguagym/suites/formula.py _format_number): a whole number
  // below 1e15 without a point, otherwise the shortest digits, in exponent form below 1e-4 and from 1e16.
  const NUMBER = /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
  function numberValue(text) {  // a number the formula language reads (a "-" in front allowed), else null
    const trimmed = String(text).trim();
    const negative = trimmed.startsWith("-");
    const body = negative ? trimmed.slice(1).trim() : trimmed;
    if (!NUMBER.test(body)) return null;
    const value = Number(body);
    return Number.isFinite(value) ? (negative ? -value : value) : null;
  }
  function pyNumber(value) {  // value >= 0
    if (Number.isInteger(value) && value < 1e15) return String(value);
    const [mantissa, exponentText] = value.toExponential().split("e");  // the shortest digits, as repr's
    const exponent = Number(exponentText);
    const digits = mantissa.replace(".", "");
    if (exponent < -4 || exponent >= 16) {
      const sign = exponent < 0 ? "-" : "+";
      return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
    }
    if (exponent < 0) return `0.${"0".repeat(-exponent - 1)}${digits}`;
    const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
    const fraction = digits.slice(exponent + 1);
    return `${whole}.${fraction || "0"}`;
  }
  function numberText(text) {  // canonical text of a typed number, or null
    const value = numberValue(text);
    if (value === null) return null;
    return (value < 0 || Object.is(value, -0) ? "-" : "") + pyNumber(Math.abs(value));
  }

  // ------------------------------------------------------------------ writing
  // A region is a number, "*" (the whole sentence) or "?" (the editor's mark for a removed region).
  function refText(region, condition) { return `(${region};%${condition}%)`; }
  // One reference of several regions, runs written N..M: ["3", "4", "5", "7"] -> "3..5,7"; null where it cannot be
  // one (one region, "*", a region twice).
  function listSpec(regions) {
    if (regions.length < 2 || regions.includes("*") || new Set(regions).size !== regions.length) return null;
    const parts = [];
    for (let i = 0; i < regions.length;) {
      let j = i;
      while (j + 1 < regions.length && /^[0-9]+$/.test(regions[j]) && /^[0-9]+$/.test(regions[j + 1]) &&
             Number(regions[j + 1]) === Number(regions[j]) + 1) j++;
      parts.push(j > i ? `${regions[i]}..${regions[j]}` : regions[i]);
      i = j + 1;
    }
    return parts.join(",");
  }
  // a term's text and whether it is a sum (which needs brackets as the right of "-" or after "2 *")
  function termParts(term) {
    const spec = term.list ? listSpec(term.regions) : null;
    if (spec !== null) return {text: refText(spec, term.condition), sum: false};
    return {text: term.regions.map((region) => refText(region, term.condition)).join(" + "),
            sum: term.regions.length > 1};
  }
  function termText(term) { return termParts(term).text; }
  function scaled(scale, inner, bracket) {
    const factor = scale === undefined || scale === "" ? null : numberText(scale);
    if (factor === null) return inner;
    return `${factor} * ${bracket ? `(${inner})` : inner}`;
  }
  function sideText(side) {
    const shape = side.shape || "term";
    if (shape === "number") return numberText(side.number) ?? String(side.number);
    if (shape === "term") {
      const {text, sum} = termParts(side);
      return scaled(side.scale, text, sum);
    }
    const [a, b] = side.terms;
    const right = termParts(b);
    const difference = `${termText(a)} - ${right.sum ? `(${right.text})` : right.text}`;
    if (shape === "abs") return `abs(${difference})`;
    return scaled(side.scale, difference, true);
  }
  function comparisonText(c) {
    const text = `${sideText(c.left)} ${c.relation} ${sideText(c.right)}`;
    return c.not ? `!(${text})` : text;
  }
  function formulaText(comparisons) { return comparisons.map(comparisonText).join(" & "); }

  // ------------------------------------------------------------------ reading
  // The tokens of formula text, as the library's tokenizer reads them (suites/formula.py), plus "?" regions; null
  // where the text holds anything else (the server then says what).
  const REF = /\(([^;()[\]%]*);\s*%([^%]*)%\s*\)/y;
  const NUM = /(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/y;
  const SYMBOLS = ["==", "<=", ">=", "!=", "<", ">", "=", "!", "+", "-", "*", "&", "|", "(", ")", "[", "]"];
  function regionsOf(spec) {  // "3..5,7" -> ["3", "4", "5", "7"] and whether it is one reference of several
    const trimmed = spec.trim();
    if (trimmed === "*" || trimmed === "?") return {regions: [trimmed], list: false};
    const regions = [];
    for (const part of trimmed.split(",")) {
      const m = part.trim().match(/^(?:([0-9]+)(?:\s*\.\.\s*([0-9]+))?|(\?))$/);
      if (!m) return null;
      if (m[3]) { regions.push("?"); continue; }
      const first = Number(m[1]);
      const last = m[2] === undefined ? first : Number(m[2]);
      if (last < first || (m[2] !== undefined && last === first) || last - first > 1000) return null;
      for (let n = first; n <= last; n++) regions.push(String(n));  // "03" is region 3
    }
    if (new Set(regions.filter((r) => r !== "?")).size !== regions.filter((r) => r !== "?").length) return null;
    return {regions, list: regions.length > 1};
  }
  function tokenize(text) {
    const tokens = [];
    let pos = 0;
    while (pos < text.length) {
      const char = text[pos];
      if (/\s/.test(char)) { pos++; continue; }
      REF.lastIndex = pos;
      const ref = char === "(" ? REF.exec(text) : null;
      if (ref) {
        const found = regionsOf(ref[1]);
        if (!found) return null;
        tokens.push({kind: "ref", regions: found.regions, list: found.list, condition: ref[2]});
        pos = REF.lastIndex;
        continue;
      }
      NUM.lastIndex = pos;
      const number = NUM.exec(text);
      if (number && number.index === pos) {
        tokens.push({kind: "num", value: Number(number[0])});
        pos = NUM.lastIndex;
        continue;
      }
      if (text.startsWith("abs", pos) && !/[A-Za-z0-9_]/.test(text[pos + 3] || "")) {
        tokens.push({kind: "abs"});
        pos += 3;
        continue;
      }
      const symbol = SYMBOLS.find((s) => text.startsWith(s, pos));
      if (!symbol) return null;
      tokens.push({kind: symbol === "==" ? "=" : symbol});
      pos += symbol.length;
    }
    return tokens;
  }

  // The tree of the library's grammar (suites/formula.py), checked for types as it does; null where it fails.
  const COMPARE = ["<", ">", "=", "<=", ">=", "!="];
  const CLOSE = {"(": ")", "[": "]"};
  const isTruth = (node) => ["cmp", "not", "logic"].includes(node.t);
  const hasRegion = (node) => node.t === "ref" || ["neg", "scale", "abs"].includes(node.t) && hasRegion(node.x) ||
    node.t === "arith" && (hasRegion(node.l) || hasRegion(node.r));
  function parse(text) {
    const tokens = tokenize(text);
    if (!tokens || !tokens.length) return null;
    let at = 0;
    const peek = () => tokens[at] || {kind: "end"};
    const fail = () => { throw new SyntaxError("not a formula"); };
    function logical(op, operand) {
      let left = operand();
      while (peek().kind === op) {
        at++;
        const right = operand();
        if (!isTruth(left) || !isTruth(right)) fail();
        left = {t: "logic", op, l: left, r: right};
      }
      return left;
    }
    const or = () => logical("|", () => logical("&", compare));
    function compare() {
      const left = sum();
      if (!COMPARE.includes(peek().kind)) return left;
      const op = tokens[at++].kind;
      const right = sum();
      if (isTruth(left) || isTruth(right) || COMPARE.includes(peek().kind)) fail();
      return {t: "cmp", op, l: left, r: right};
    }
    function sum() {
      let left = scaledTerm();
      while (peek().kind === "+" || peek().kind === "-") {
        const op = tokens[at++].kind;
        const right = scaledTerm();
        if (isTruth(left) || isTruth(right)) fail();
        left = {t: "arith", op, l: left, r: right};
      }
      if (peek().kind === "*") fail();
      return left;
    }
    function scaledTerm() {
      const token = peek();
      if (token.kind === "-") {
        at++;
        const x = scaledTerm();
        if (isTruth(x)) fail();
        return {t: "neg", x};
      }
      if (token.kind === "num" && tokens[at + 1] && tokens[at + 1].kind === "*") {
        at += 2;
        const x = scaledTerm();
        if (isTruth(x) || !hasRegion(x)) fail();
        return {t: "scale", k: token.value, x};
      }
      return atom();
    }
    function group() {
      if (!CLOSE[peek().kind]) fail();
      return atom();
    }
    function atom() {
      const token = tokens[at++] || fail();
      if (token.kind === "num") return {t: "num", value: token.value};
      if (token.kind === "ref") return {t: "ref", regions: token.regions, list: token.list, condition: token.condition};
      if (token.kind === "!" || token.kind === "abs") {
        const x = group();
        if (isTruth(x) !== (token.kind === "!")) fail();
        return {t: token.kind === "!" ? "not" : "abs", x};
      }
      if (!CLOSE[token.kind]) fail();
      const inner = or();
      if (peek().kind !== CLOSE[token.kind]) fail();
      at++;
      return inner;
    }
    try {
      const tree = or();
      return at === tokens.length && isTruth(tree) ? tree : null;
    } catch (error) {
      if (error instanceof SyntaxError) return null;
      throw error;
    }
  }

  // The builder's view of a tree, or null where it has another shape.
  function readTerm(node) {
    if (node.t === "ref" && node.list) return {regions: node.regions, condition: node.condition, list: true};
    const refs = [];
    const collect = (n) => {  // a sum of single regions, however bracketed
      if (n.t === "ref" && !n.list) refs.push(n);
      else if (n.t === "arith" && n.op === "+") return collect(n.l) && collect(n.r);
      else return false;
      return true;
    };
    if (!collect(node) || refs.some((ref) => ref.condition !== refs[0].condition)) return null;
    return {regions: refs.map((ref) => ref.regions[0]), condition: refs[0].condition};
  }
  function readDifference(node) {
    if (node.t !== "arith" || node.op !== "-") return null;
    const a = readTerm(node.l);
    const b = readTerm(node.r);
    return a && b ? [a, b] : null;
  }
  function readSide(node) {
    if (node.t === "num") return {shape: "number", number: numberText(String(node.value))};
    if (node.t === "neg" && node.x.t === "num") return {shape: "number", number: numberText(`-${node.x.value}`)};
    let scale;
    if (node.t === "scale") { scale = numberText(String(node.k)); node = node.x; }
    else if (node.t === "neg" && node.x.t === "scale") { scale = numberText(`-${node.x.k}`); node = node.x.x; }
    if (node.t === "abs" && scale === undefined) {
      const terms = readDifference(node.x);
      return terms ? {shape: "abs", terms} : null;
    }
    const terms = readDifference(node);
    if (terms) return scale === undefined ? {shape: "difference", terms} : {shape: "difference", terms, scale};
    const term = readTerm(node);
    if (!term) return null;
    return scale === undefined ? term : {...term, scale};
  }
  function readComparison(node) {
    const not = node.t === "not";
    if (not) node = node.x;
    if (node.t !== "cmp") return null;
    const left = readSide(node.l);
    const right = readSide(node.r);
    if (!left || !right) return null;
    return not ? {left, relation: node.op, right, not: true} : {left, relation: node.op, right};
  }
  function readFormula(text) {
    const tree = parse(text);
    if (!tree) return null;
    const parts = [];
    const flatten = (node) => {
      if (node.t === "logic" && node.op === "&") { flatten(node.l); flatten(node.r); } else parts.push(node);
    };
    flatten(tree);
    const comparisons = parts.map(readComparison);
    return comparisons.every(Boolean) ? comparisons : null;
  }

  const api = {RELATIONS, SHAPES, formulaText, readFormula, numberText, numberValue, listSpec};
  if (typeof module === "object" && module.exports) module.exports = api;  // node, for the tests
  else root.PredictionBuilder = api;
})(this);
