// Test runs skip MariaDB's per-commit log flush (innodb_flush_log_at_trx_commit = 2): their
// databases are thrown away, and DDL and small commits dominate the suite's time. The setting is
// global (MariaDB has no per-session form), so the last run to finish puts back the value found
// before the first one started. Concurrent runs on one MariaDB share a state file listing them;
// a run killed outright is dropped from it by the next run to start or finish.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const STATE = join(tmpdir(), 'pullhost-test-durability.json');
const LOCK = `${STATE}.lock`;
const RELAXED = '2';

function mariadb(sql) {
  return spawnSync('mariadb', ['-uroot', '-h127.0.0.1', '--batch', '--skip-column-names', '-e', sql], { encoding: 'utf8' });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Runs `fn` holding the state file's lock (a directory: made atomically or not at all). */
function locked(fn) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // A lock older than the deadline was left by a killed run.
      if (Date.now() > deadline) break;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try {
    return fn();
  } finally {
    try {
      rmdirSync(LOCK);
    } catch {
      // already gone
    }
  }
}

function readState() {
  try {
    return JSON.parse(readFileSync(STATE, 'utf8'));
  } catch {
    return null;
  }
}

/** Relaxes durability for this run; returns a function that ends the run's claim (and restores when it is the last). */
export function relaxDurabilityForTests(say) {
  const ok = locked(() => {
    let state = readState();
    state = state && { ...state, runs: state.runs.filter(alive) };
    if (!state || state.runs.length === 0) {
      const found = mariadb('SELECT @@GLOBAL.innodb_flush_log_at_trx_commit');
      if (found.status !== 0) return false;
      // A state file from runs that all died: their original value, not the relaxed one they left.
      state = { original: state?.original ?? found.stdout.trim(), runs: [] };
    }
    if (mariadb(`SET GLOBAL innodb_flush_log_at_trx_commit = ${RELAXED}`).status !== 0) return false;
    state.runs.push(process.pid);
    writeFileSync(STATE, JSON.stringify(state));
    return true;
  });
  if (!ok) {
    say('could not relax MariaDB durability for the test run (continuing)');
    return () => {};
  }
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    locked(() => {
      const state = readState();
      if (!state) return;
      state.runs = state.runs.filter((pid) => pid !== process.pid && alive(pid));
      if (state.runs.length > 0) return writeFileSync(STATE, JSON.stringify(state));
      if (/^[012]$/.test(state.original)) mariadb(`SET GLOBAL innodb_flush_log_at_trx_commit = ${state.original}`);
      unlinkSync(STATE);
    });
  };
}
