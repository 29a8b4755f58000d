/**
 * @module cli/commands/risk-models
 * `lotwise risk-models import|list|show|delete`: upload a vendor (Barra, Axioma...) or custom risk model from CSV
 * files (or a JSON body), so that configurations with `risk_model_name` vendor or custom optimize with it. Works the
 * same against the local store and a server (`--url`).
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { Command } from "commander";
import {
  RISK_MODEL_FREQUENCIES,
  RISK_MODEL_UNITS,
  type RiskModel,
  type RiskModelImport,
  type RiskModelSummary,
} from "../../contract/index.js";
import {
  type CsvText,
  RISK_MODEL_FILE_FIELDS,
  type RiskModelFileNaming,
  type RiskModelFiles,
  riskModelImportFromCsv,
} from "../../service/risk-model-csv.js";
import { warningLine } from "../colour.js";
import { usageError } from "../errors.js";
import { OUT_OPTION_HELP, writeListOut } from "../list-out.js";
import { renderKeyValues, renderTable } from "../output.js";
import { action, dateFlag, examples, type ProgramHooks, readJsonInput } from "../program.js";
import { percent } from "../render.js";

interface ImportOptions {
  kind?: string;
  name?: string;
  asOf?: string;
  exposures?: string;
  covariance?: string;
  specificRisk?: string;
  frequency?: string;
  units?: string;
  file?: string;
}

const IMPORT_HELP = `
Files (CSV with a header row; asset ids are theme_asset_ids such as AAPL:XNAS):
  --exposures      long:  asset,factor,exposure        (one row per asset and factor; missing = 0)
                   wide:  asset,<factor1>,<factor2>,... (one row per asset)
  --covariance     the factor covariance, long: factor1,factor2,covariance (every pair of one triangle, 0 included)
                   or square: a header of factor names and the same names down the first column.
                   With --kind custom and no --exposures: a square ASSET covariance (header row of asset
                   ids, asset ids down the first column), in fractions.
  --specific-risk  asset,specific_risk      (volatilities: the vendor convention)
                   asset,specific_variance  (variances; the only form a custom factor model takes)

Units and horizon: --frequency says what period the numbers cover (annual for Barra and Axioma files; daily
numbers are multiplied by 252, monthly by 12) and is required for vendor models. --units percent (vendor only)
reads covariances in %^2 (divided by 10,000) and volatilities in % (divided by 100). Everything is stored
annualized in fractions; \`show\` prints each factor's volatility so you can check them (a market factor near 15%).

Without the CLI: POST the same files to .../risk_models/ as multipart parts exposures, covariance and specific_risk,
with kind, name, as_of_date, frequency and units as fields (docs/optimize-service.md, "The CSV files over HTTP").

The optimizer (lotwise optimize / rebalance) uses the newest model of the configuration's risk_model_name whose
--as-of date is on or before the optimization's date; assets the model does not cover are imputed from their sector.`;

/** The import body from the options: a JSON file, CSV files, or a JSON file completed by options. */
async function importBody(opts: ImportOptions): Promise<RiskModelImport> {
  const base = (opts.file ? await readJsonInput(opts.file) : {}) as Record<string, unknown>;
  if (typeof base !== "object" || base === null || Array.isArray(base))
    throw usageError("--file must hold a JSON object (a RiskModelImport body)", "file");
  const body: Record<string, unknown> = { ...base };
  const kind = opts.kind ?? (base.kind as string | undefined);
  if (kind !== "vendor" && kind !== "custom")
    throw usageError(
      "Give --kind vendor (exposures, factor covariance, specific risk) or --kind custom.",
      "kind",
    );
  body.kind = kind;
  if (opts.name !== undefined) body.name = opts.name;
  // --as-of is checked by its parser (dateFlag).
  if (opts.asOf !== undefined) body.as_of_date = opts.asOf;
  if (body.name === undefined) throw usageError("Give --name, e.g. --name 'Barra USE4 2025-12'.", "name");
  if (body.as_of_date === undefined)
    throw usageError(
      "Give --as-of DATE: the date the model describes (it serves optimizations from then on).",
      "as-of",
    );
  if (opts.frequency !== undefined) {
    if (!(RISK_MODEL_FREQUENCIES as readonly string[]).includes(opts.frequency))
      throw usageError(`--frequency must be one of ${RISK_MODEL_FREQUENCIES.join(", ")}.`, "frequency");
    body.frequency = opts.frequency;
  }
  if (opts.units !== undefined) {
    if (kind !== "vendor")
      throw usageError("--units is for vendor models; custom numbers are fractions.", "units");
    if (!(RISK_MODEL_UNITS as readonly string[]).includes(opts.units))
      throw usageError(`--units must be one of ${RISK_MODEL_UNITS.join(", ")}.`, "units");
    body.units = opts.units;
  }
  if (kind === "vendor" && body.frequency === undefined)
    throw usageError(
      "Vendor models need --frequency: annual for Barra and Axioma files (already annualized), daily for daily numbers (multiplied by 252).",
      "frequency",
    );
  const paths = { exposures: opts.exposures, covariance: opts.covariance, specific_risk: opts.specificRisk };
  if (Object.values(paths).every((p) => p === undefined)) {
    if (opts.file === undefined)
      throw usageError(
        "Give the model's files (--exposures, --covariance, --specific-risk) or --file.",
        "exposures",
      );
    return body as RiskModelImport;
  }
  // The files override the numbers of --file. The service reads their texts (the parser of the HTTP upload);
  // its errors name the flags.
  for (const field of RISK_MODEL_FILE_FIELDS) delete body[field];
  const files: RiskModelFiles = {};
  for (const [part, path] of Object.entries(paths) as [keyof RiskModelFiles, string | undefined][])
    if (path !== undefined) files[part] = await readCsvFile(path);
  return riskModelImportFromCsv(body, files, FLAG_NAMING) as RiskModelImport;
}

/** The flags of the files, for the service's messages about which files a model needs. */
const FLAG_NAMING: RiskModelFileNaming = {
  exposures: "--exposures",
  covariance: "--covariance",
  specific_risk: "--specific-risk",
  kind: "--kind",
  code: "usage",
};

/** A CSV file's text, named by its file name in errors. */
async function readCsvFile(path: string): Promise<CsvText> {
  return { name: basename(path), text: await readFile(path, "utf8") };
}

/** A model for people: summary, source, factor volatilities, warnings. */
export function renderRiskModel(m: RiskModel): string {
  const parts = [
    renderKeyValues(
      [
        ["Risk model", `${m.name}  ${m.uuid}`],
        ["Kind", m.kind],
        ["As of", m.as_of_date],
        ["Assets", m.asset_count],
        ["Factors", m.factor_count],
        [
          "Read as",
          `${m.source.form === "covariance" ? "asset covariance" : "factor model"}, ${m.source.frequency} numbers in ${m.source.units === "percent" ? "percent" : "fractions"}${m.source.form === "factor_model" ? `, specific ${m.source.specific_risk_kind}` : ""}`,
        ],
        [
          "Specific volatility (annual)",
          `${percent(m.specific_volatility.min)} min, ${percent(m.specific_volatility.median)} median, ${percent(m.specific_volatility.max)} max`,
        ],
        ["Uploaded", m.created],
      ],
      "Risk model",
    ),
    renderTable(
      m.factors.slice(0, 50),
      [
        { header: "Factor", value: (f) => f.name },
        { header: "Volatility (annual)", value: (f) => percent(f.volatility), align: "right" },
      ],
      `Factors${m.factors.length > 50 ? ` (first 50 of ${m.factors.length}; --json lists all)` : ""}`,
    ),
  ];
  for (const w of m.warnings) parts.push(warningLine(w));
  return parts.join("\n\n");
}

function renderRiskModels(list: readonly RiskModelSummary[]): string {
  return renderTable(list, [
    { header: "Uuid", value: (m) => m.uuid },
    { header: "Kind", value: (m) => m.kind },
    { header: "Name", value: (m) => m.name },
    { header: "As of", value: (m) => m.as_of_date },
    { header: "Assets", value: (m) => m.asset_count, align: "right" },
    { header: "Factors", value: (m) => m.factor_count, align: "right" },
    { header: "Warnings", value: (m) => m.warnings.length, align: "right" },
  ]);
}

export function registerRiskModels(program: Command, hooks: ProgramHooks): void {
  const cmd = program
    .command("risk-models")
    .description(
      "Uploaded risk models: a vendor model (Barra, Axioma...) or your own, used by configurations whose risk_model_name is vendor or custom.",
    );
  examples(
    cmd
      .command("import")
      .description(
        "Upload a risk model from CSV files (or a JSON body): validated record by record, converted to annualized fractions, made positive semidefinite (reported), stored with its as-of date.",
      )
      .option("--kind <kind>", "vendor (exposures + factor covariance + specific risk) or custom")
      .option("--name <name>", "a name to recognize it by")
      .option("--as-of <date>", "the date the model describes, YYYY-MM-DD", dateFlag)
      .option("--exposures <file>", "exposures CSV (long or wide)")
      .option("--covariance <file>", "factor covariance CSV; for custom alone, a square asset covariance")
      .option("--specific-risk <file>", "specific risk (or variance) CSV")
      .option(
        "--frequency <f>",
        `horizon of the numbers: ${RISK_MODEL_FREQUENCIES.join(", ")} (required for vendor)`,
      )
      .option("--units <u>", "vendor only: fraction (default) or percent")
      .option("--file <path>", "a JSON RiskModelImport body ('-' for stdin); options override its fields")
      .addHelpText("after", IMPORT_HELP)
      .action(
        action(hooks, async (ctx, opts: ImportOptions) => {
          const body = await importBody(opts);
          const m = await ctx.out.spin("Importing the risk model", async () =>
            (await ctx.backend()).importRiskModel(body),
          );
          if (ctx.out.json) ctx.out.printJson(m);
          else ctx.out.line(`Imported risk model ${m.uuid}.\n${renderRiskModel(m)}`);
        }),
      ),
    "lotwise risk-models import --kind vendor --name 'Barra USE4 2025-12' --as-of 2025-12-31 --frequency annual --units percent --exposures exposures.csv --covariance factor_cov.csv --specific-risk srisk.csv",
    "lotwise risk-models import --kind custom --name 'House covariance' --as-of 2025-12-31 --covariance asset_cov.csv",
  );
  examples(
    cmd
      .command("list")
      .description("List the organization's uploaded risk models (no matrices), by as-of date.")
      .option("--out <file>", OUT_OPTION_HELP)
      .action(
        action(hooks, async (ctx, opts: { out?: string }) => {
          const list = await (await ctx.backend()).listRiskModels();
          if (opts.out)
            await writeListOut(ctx.out, opts.out, "risk models", list, [
              { header: "risk_model_uuid", value: (m) => m.uuid },
              { header: "kind", value: (m) => m.kind },
              { header: "name", value: (m) => m.name },
              { header: "as_of_date", value: (m) => m.as_of_date },
              { header: "asset_count", value: (m) => m.asset_count },
              { header: "factor_count", value: (m) => m.factor_count },
              { header: "warnings", value: (m) => m.warnings.join("; ") },
              { header: "created", value: (m) => m.created },
            ]);
          else if (ctx.out.json) ctx.out.printJson(list);
          else
            ctx.out.line(
              list.length
                ? renderRiskModels(list)
                : "No risk models yet: lotwise risk-models import --kind vendor --help",
            );
        }),
      ),
    "lotwise risk-models list --json",
    "lotwise risk-models list --out risk-models.csv",
  );
  examples(
    cmd
      .command("show <riskModel>")
      .description(
        "Show one model: how it was read, each factor's annual volatility, specific volatilities, warnings.",
      )
      .action(
        action(hooks, async (ctx, uuid: string) => {
          const m = await (await ctx.backend()).getRiskModel(uuid);
          if (ctx.out.json) ctx.out.printJson(m);
          else ctx.out.line(renderRiskModel(m));
        }),
      ),
    "lotwise risk-models show 3b1f0c2e-...",
  );
  examples(
    cmd
      .command("delete <riskModel>")
      .description(
        "Delete an uploaded model; optimizations then use the previous model of its kind (or fail when none is left).",
      )
      .action(
        action(hooks, async (ctx, uuid: string) => {
          await (await ctx.backend()).deleteRiskModel(uuid);
          if (ctx.out.json) ctx.out.printJson({ deleted: uuid });
          else ctx.out.line(`Deleted risk model ${uuid}.`);
        }),
      ),
    "lotwise risk-models delete 3b1f0c2e-...",
  );
}
