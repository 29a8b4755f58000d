/**
 * A second process that holds a lotwise store's SQLite write lock, as a long CLI import does: BEGIN IMMEDIATE, one
 * write, then nothing for HOLD_MS milliseconds before COMMIT. Prints "locked" once it holds the lock and "released"
 * after the commit.
 * Usage: node hold-write-lock.mjs STORE_FILE HOLD_MS
 */
import Database from "better-sqlite3";

const [path, holdMs] = process.argv.slice(2);
const db = new Database(path, { fileMustExist: true });
db.pragma("busy_timeout = 30000");
db.exec("BEGIN IMMEDIATE");
db.prepare("UPDATE organizations SET name = name").run();
process.stdout.write("locked\n");
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(holdMs));
db.exec("COMMIT");
db.close();
process.stdout.write("released\n");
