/**
 * Every database the journal speaks has every statement the journal runs,
 * and no other: the compiler refuses a dialect object that lacks one, and
 * this refuses one built any other way. The statement names the journal
 * calls are read from its own source, so a statement called but missing,
 * or written but never called, is named here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  JOURNAL_STATEMENT_NAMES,
  type JournalDialect,
  MIGRATION_PIECE_NAMES,
} from '../../../src/server/journal/dialects/dialect.js';
import { JOURNAL_DIALECTS } from '../../../src/server/journal/dialects/journal-dialects.js';
import { NOW } from '../../../src/server/journal/dialects/sql-parts.js';
import { JOURNAL_MIGRATIONS, migrationStatements } from '../../../src/server/journal/migrations.js';

const dialects = Object.entries(JOURNAL_DIALECTS) as [string, JournalDialect][];

/** The statement names the SQL journal runs, as its source calls them: `run.query('get', …)`, `changed('renewLease', …)`. */
function statementsCalled(): string[] {
  const called = new Set<string>();
  for (const file of ['sql-journal.ts', 'sql-lookups.ts', 'sql-webhooks.ts']) {
    const source = readFileSync(new URL(`../../../src/server/journal/${file}`, import.meta.url), 'utf8');
    // A statement run by name, or named in a [name, parameters] pair that one transaction runs.
    for (const match of source.matchAll(
      /\b(?:execute|query|claim|changed|erasing)\(\s*'(\w+)'|\[\s*'(\w+)',/g,
    )) {
      called.add((match[1] ?? match[2]) as string);
    }
  }
  return [...called].sort();
}

/** The parameter numbers a statement uses, in `dialect`'s placeholders. */
function parametersOf(sql: string, dialect: JournalDialect): number[] {
  return [...new Set([...sql.matchAll(dialect.placeholders.pattern)].map((match) => Number(match[1])))].sort(
    (a, b) => a - b,
  );
}

describe('the journal dialects', () => {
  it('are every dialect written in dialects/: none is left out of the list the stores and this test read', async () => {
    const folder = new URL('../../../src/server/journal/dialects/', import.meta.url);
    const registered = new Set<unknown>(Object.values(JOURNAL_DIALECTS));
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts'))) {
      const module = (await import(new URL(file, folder).href)) as Record<string, unknown>;
      for (const [exported, value] of Object.entries(module)) {
        const isDialect = typeof value === 'object' && value !== null && 'statements' in value;
        if (isDialect) assert.ok(registered.has(value), `${file}'s ${exported} is not in JOURNAL_DIALECTS`);
      }
    }
  });

  it('name every statement the SQL journal calls, and the journal calls every one', () => {
    assert.deepEqual(statementsCalled(), [...JOURNAL_STATEMENT_NAMES].sort());
  });

  for (const [name, dialect] of dialects) {
    it(`${name} has every statement and no other, each written out`, () => {
      assert.equal(dialect.name, name);
      assert.deepEqual(Object.keys(dialect.statements).sort(), [...JOURNAL_STATEMENT_NAMES].sort());
      for (const statement of JOURNAL_STATEMENT_NAMES) {
        const sql = dialect.statements[statement];
        assert.equal(typeof sql, 'string', `${name} lacks ${statement}`);
        assert.ok(sql.trim().length > 0, `${name}'s ${statement} is empty`);
      }
    });

    it(`${name} writes every migration piece, and every migration step reads as SQL`, () => {
      assert.deepEqual(Object.keys(dialect.migrationPieces).sort(), [...MIGRATION_PIECE_NAMES].sort());
      for (const migration of JOURNAL_MIGRATIONS) {
        for (const sql of migrationStatements(migration, name as keyof typeof JOURNAL_DIALECTS)) {
          assert.equal(typeof sql, 'string', `${name} lacks a statement of migration ${migration.version}`);
          assert.ok(
            sql.trim().length > 0,
            `${name} has an empty statement in migration ${migration.version}`,
          );
        }
      }
    });

    it(`${name} writes parameters in its own style only, numbered from 1 without a gap`, () => {
      for (const statement of JOURNAL_STATEMENT_NAMES) {
        const sql = dialect.statements[statement];
        const numbers = parametersOf(sql, dialect);
        assert.deepEqual(
          numbers,
          numbers.map((_, index) => index + 1),
          `${name}'s ${statement}: ${numbers}`,
        );
        for (const [other, style] of dialects) {
          if (style.placeholders.pattern.source === dialect.placeholders.pattern.source) continue;
          assert.deepEqual(
            parametersOf(sql, style),
            [],
            `${name}'s ${statement} has ${other}'s placeholders`,
          );
        }
      }
    });
  }

  it('take as many parameters, and read the time, alike in every dialect: the journal binds the same values', () => {
    for (const statement of JOURNAL_STATEMENT_NAMES) {
      const shapes = dialects.map(([, dialect]) => {
        const sql = dialect.statements[statement];
        return { parameters: parametersOf(sql, dialect).length, readsTime: sql.includes(NOW) };
      });
      for (const shape of shapes) assert.deepEqual(shape, shapes[0], statement);
    }
  });
});
