/**
 * @module cli/commands/store
 * `lotwise store migrate` (bring a store to this lotwise's schema version) and `lotwise store copy` (copy a whole
 * store into an empty one, e.g. a SQLite file into PostgreSQL). See docs/deploy.md, "Moving an existing store".
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import { copyStore, isPostgresLocation, migrateStore, openStore } from "../../store/index.js";
import { renderTable } from "../output.js";
import { action, examples, type ProgramHooks } from "../program.js";

/** A `--from` / `--to` value as `openStore` takes it: URLs as given, file paths made absolute. */
function locationOf(value: string): string {
  return isPostgresLocation(value) ? value : resolve(value);
}

export function registerStore(program: Command, hooks: ProgramHooks): void {
  const store = program
    .command("store")
    .description(
      "Store maintenance: bring a store (SQLite file or PostgreSQL database) to this lotwise's schema version, or copy a whole store into an empty one (e.g. a SQLite file into PostgreSQL to scale out).",
    );

  const migrate = store
    .command("migrate")
    .description(
      "Create or upgrade the store of --store (LOTWISE_STORE) to this lotwise's schema version and say from which version to which. Every command migrates the store it opens; run this once per deployment before starting several `lotwise serve` / `lotwise worker` processes on a new version.",
    )
    .action(
      action(hooks, async (ctx) => {
        const report = await migrateStore(ctx.storePath());
        if (ctx.out.json) {
          ctx.out.printJson({ store: report.location, from_version: report.from, to_version: report.to });
          return;
        }
        if (report.from === null || report.from === 0)
          ctx.out.line(`Created the store at ${report.location} (schema version ${report.to}).`);
        else if (report.from === report.to)
          ctx.out.line(`${report.location} is already at schema version ${report.to}; nothing to do.`);
        else ctx.out.line(`Migrated ${report.location} from schema version ${report.from} to ${report.to}.`);
      }),
    );
  examples(
    migrate,
    "lotwise store migrate --store lotwise.db",
    "LOTWISE_STORE=postgres://lotwise@db.internal:5432/lotwise lotwise store migrate",
  );

  const copy = store
    .command("copy")
    .description(
      "Copy every row of the store --from into the empty store --to (created when missing), in one transaction of the target: a failed copy leaves it empty. The source is read as one consistent snapshot. Refuses a target that holds any row. Jobs that were PENDING are enqueued by the first `lotwise worker`'s reconcile sweep.",
    )
    .requiredOption("--from <store>", "the store to copy: a SQLite file or a postgres:// URL")
    .requiredOption("--to <store>", "the empty store to fill: a SQLite file or a postgres:// URL")
    .action(
      action(hooks, async (ctx, opts: { from: string; to: string }) => {
        const source = await openStore(locationOf(opts.from), { create: false });
        try {
          const target = await openStore(locationOf(opts.to));
          try {
            const counts = await ctx.out.spin(
              `Copying ${source.location} into ${target.location}`,
              async (update) =>
                copyStore(source, target, {
                  onProgress: (table, rows, done) =>
                    update(`${table}: ${rows.toLocaleString("en-US")} rows${done ? " (done)" : ""}`),
                }),
            );
            const total = Object.values(counts).reduce((a, b) => a + b, 0);
            if (ctx.out.json) {
              ctx.out.printJson({
                from: source.location,
                to: target.location,
                rows: counts,
                total_rows: total,
              });
              return;
            }
            ctx.out.line(
              renderTable(
                Object.entries(counts).map(([table, rows]) => ({ table, rows })),
                [
                  { header: "Table", value: (r) => r.table },
                  { header: "Rows", value: (r) => r.rows, align: "right" },
                ],
              ),
            );
            ctx.out.line(
              `Copied ${total.toLocaleString("en-US")} rows from ${source.location} into ${target.location}.`,
            );
          } finally {
            await target.close();
          }
        } finally {
          await source.close();
        }
      }),
    );
  examples(
    copy,
    "lotwise store copy --from lotwise.db --to postgres://lotwise@db.internal:5432/lotwise",
    "lotwise store copy --from postgres://lotwise@db.internal:5432/lotwise --to snapshot.db",
  );
}
