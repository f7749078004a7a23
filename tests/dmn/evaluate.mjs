// Decide many records with a DMN file, as real DMN tooling reads it, for tests/export/test_dmn.py.
//
// stdin: {"engine": "dmn-eval-js" | "feelin", "dmn": "<xml text>", "decision": "<decision id>",
//         "records": [{name: value, ...}, ...]}
// stdout: [{output name: value, ...} | null, ...], one per record (null: no rule matched)
// Any problem (the XML does not read cleanly, FEEL that does not parse, an evaluation warning)
// is printed on stderr and the exit status is 1: a test must never pass on a half-read file.
//
// dmn-eval-js: @hbtgmbh/dmn-eval-js reads the file (DMN 1.1, its own dmn-moddle 4) and
// evaluates the decision itself; its moddle's warnings are checked first.
// feelin: dmn-moddle (DMN 1.3) reads the file; this script walks the decision table and
// applies hit policy FIRST, each input expression, input entry and output entry evaluated by
// @bpmn-io/feelin.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function fail(message) {
  process.stderr.write(`evaluate.mjs: ${message}\n`);
  process.exit(1);
}

async function withDmnEvalJs(xml, decisionId, records) {
  const { decisionTable } = require('@hbtgmbh/dmn-eval-js');
  require('loglevel').getLogger('dmn-eval-js').setLevel('silent');
  const definitions = await new Promise((resolve, reject) => {
    decisionTable.readDmnXml(xml, {}, (err, root, context) => {
      if (err) reject(err);
      else if (context.warnings.length) reject(new Error(`dmn-moddle 1.1: ${context.warnings.map((w) => w.message).join('; ')}`));
      else resolve(root);
    });
  });
  const decisions = decisionTable.parseDecisions(definitions.drgElements);
  return records.map((record) => {
    const result = decisionTable.evaluateDecision(decisionId, decisions, { ...record });
    return Object.values(result).every((v) => v === undefined) ? null : result;
  });
}

function feelinTable(definitions, decisionId) {
  const decision = definitions.drgElement.find((e) => e.id === decisionId);
  if (!decision) throw new Error(`no decision with id ${decisionId}`);
  const table = decision.decisionLogic;
  if (!table || table.$type !== 'dmn:DecisionTable') throw new Error('the decision holds no decision table');
  if (table.hitPolicy !== 'FIRST') throw new Error(`hit policy ${table.hitPolicy}, not FIRST`);
  return {
    inputs: table.input.map((i) => i.inputExpression.text),
    outputs: table.output.map((o) => o.name),
    rules: table.rule.map((r) => ({ tests: r.inputEntry.map((e) => e.text), results: r.outputEntry.map((e) => e.text) })),
  };
}

function checked(what, text, outcome) {
  if (outcome.warnings.length) {
    throw new Error(`${what} ${JSON.stringify(text)}: ${outcome.warnings.map((w) => w.message).join('; ')}`);
  }
  return outcome.value;
}

async function withFeelin(xml, decisionId, records) {
  const { DmnModdle } = await import('dmn-moddle');
  const { evaluate, unaryTest, parseUnaryTests, parseExpression } = await import('@bpmn-io/feelin');
  const { rootElement, warnings } = await new DmnModdle().fromXML(xml);
  if (warnings.length) throw new Error(`dmn-moddle 1.3: ${warnings.map((w) => w.message).join('; ')}`);
  const table = feelinTable(rootElement, decisionId);
  // feelin recovers from syntax errors; parse every text strictly first so that a typo fails
  for (const rule of table.rules) {
    for (const t of rule.tests) {
      if (parseUnaryTests(t).topNode.toString().includes('⚠')) throw new Error(`input entry does not parse: ${t}`);
    }
    for (const t of rule.results) {
      if (parseExpression(t).topNode.toString().includes('⚠')) throw new Error(`output entry does not parse: ${t}`);
    }
  }
  const memo = new Map();   // the same test on the same value decides the same (feelin parses per call)
  const test = (text, value, context) => {
    const key = `${text}\u0000${typeof value}\u0000${String(value)}`;
    if (!memo.has(key)) memo.set(key, checked('input entry', text, unaryTest(text, { ...context, '?': value })) === true);
    return memo.get(key);
  };
  return records.map((record) => {
    const values = table.inputs.map((e) => checked('input expression', e, evaluate(e, record)));
    const rule = table.rules.find((r) => r.tests.every((t, k) => test(t, values[k], record)));
    if (rule === undefined) return null;
    return Object.fromEntries(table.outputs.map((name, k) => [name, checked('output entry', rule.results[k], evaluate(rule.results[k], record))]));
  });
}

try {
  const request = JSON.parse(readFileSync(0, 'utf8'));
  const engines = { 'dmn-eval-js': withDmnEvalJs, feelin: withFeelin };
  const run = engines[request.engine];
  if (!run) fail(`unknown engine ${request.engine}`);
  const results = await run(request.dmn, request.decision, request.records);
  process.stdout.write(JSON.stringify(results));
} catch (err) {
  fail(err && err.stack ? err.stack : String(err));
}
