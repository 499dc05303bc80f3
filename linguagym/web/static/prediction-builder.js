// The guided prediction builder's formula text, in both directions, with no page in it (the editor draws it).
// A built prediction is one comparison, or several joined by "&"; a comparison has a term on each side, and a term
// is one region, or a sum of regions, of one condition:
//   [{left: {regions: ["6", "7"], condition: "plaus"}, relation: "<",
//     right: {regions: ["6", "7"], condition: "implaus"}}]
// formulaText writes the text linguagym.suites.formula.format_formula prints for that tree (tests/web/
// test_prediction_builder.py parses every form with the library); readFormula reads a formula back when it has
// that shape, else null (a "custom formula").
"use strict";
(function (root) {
  // "=" holds within the run's tolerance (1e-3 bits by default): the format has no per-prediction tolerance.
  const RELATIONS = [
    {op: ">", label: "> is greater than"},
    {op: "<", label: "< is less than"},
    {op: "=", label: "= equals (within tolerance)"},
  ];

  // A region is a number, "*" (the whole sentence) or "?" (the editor's mark for a removed region).
  function refText(region, condition) { return `(${region};%${condition}%)`; }
  function termText(term) { return term.regions.map((region) => refText(region, term.condition)).join(" + "); }
  function comparisonText(c) { return `${termText(c.left)} ${c.relation} ${termText(c.right)}`; }
  function formulaText(comparisons) { return comparisons.map(comparisonText).join(" & "); }

  // The tokens of formula text, as the library's tokenizer reads them (suites/formula.py), plus "?" regions;
  // null for anything a built formula cannot hold (numbers, "-", "|", ...).
  const REF = /\(\s*([0-9]+|\*|\?)\s*;\s*%([^%]*)%\s*\)/y;
  function tokenize(text) {
    const tokens = [];
    let pos = 0;
    while (pos < text.length) {
      const char = text[pos];
      if (/\s/.test(char)) { pos++; continue; }
      REF.lastIndex = pos;
      const ref = char === "(" ? REF.exec(text) : null;
      if (ref) {
        const region = /^[0-9]+$/.test(ref[1]) ? String(Number(ref[1])) : ref[1];  // "03" is region 3
        tokens.push({kind: "ref", region, condition: ref[2]});
        pos = REF.lastIndex;
      } else if (text.startsWith("==", pos)) {
        tokens.push({kind: "="});
        pos += 2;
      } else if ("()[]+<>=&".includes(char)) {
        tokens.push({kind: char});
        pos++;
      } else {
        return null;
      }
    }
    return tokens;
  }

  // formula := part ("&" part)*;  part := "(" formula ")" | "[" formula "]" | sum relation sum
  // sum := atom ("+" atom)*;  atom := ref | "(" sum ")" | "[" sum "]"
  function readFormula(text) {
    const tokens = tokenize(text);
    if (!tokens || !tokens.length) return null;
    let at = 0;
    const CLOSE = {"(": ")", "[": "]"};
    const next = (kind) => tokens[at] !== undefined && tokens[at].kind === kind;
    function sum() {
      const refs = atom();
      if (!refs) return null;
      while (next("+")) {
        at++;
        const more = atom();
        if (!more) return null;
        refs.push(...more);
      }
      return refs;
    }
    function atom() {
      const token = tokens[at];
      if (!token) return null;
      if (token.kind === "ref") { at++; return [token]; }
      if (!CLOSE[token.kind]) return null;
      at++;
      const refs = sum();
      if (!refs || !next(CLOSE[token.kind])) return null;
      at++;
      return refs;
    }
    function conjunction() {
      const parts = part();
      if (!parts) return null;
      while (next("&")) {
        at++;
        const more = part();
        if (!more) return null;
        parts.push(...more);
      }
      return parts;
    }
    function part() {
      const start = at;
      if (tokens[at] && CLOSE[tokens[at].kind]) {  // comparisons in brackets? else a bracketed sum
        at++;
        const inner = conjunction();
        if (inner && next(CLOSE[tokens[start].kind])) { at++; return inner; }
        at = start;
      }
      const left = sum();
      if (!left) return null;
      const relation = tokens[at] && RELATIONS.some((r) => r.op === tokens[at].kind) ? tokens[at++].kind : null;
      const right = relation && sum();
      return right ? [{left, relation, right}] : null;
    }
    const found = conjunction();
    if (!found || at !== tokens.length) return null;
    const term = (refs) => refs.every((ref) => ref.condition === refs[0].condition)
      ? {regions: refs.map((ref) => ref.region), condition: refs[0].condition} : null;
    const comparisons = found.map(({left, relation, right}) => ({left: term(left), relation, right: term(right)}));
    return comparisons.every((c) => c.left && c.right) ? comparisons : null;
  }

  const api = {RELATIONS, formulaText, readFormula};
  if (typeof module === "object" && module.exports) module.exports = api;  // node, for the tests
  else root.PredictionBuilder = api;
})(this);
