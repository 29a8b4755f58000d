/** @module cli/commands/orgs `lotwise orgs` and `lotwise keys`: organizations and API keys (local store only). */
import type { Command } from "commander";
import {
  createApiKey,
  createOrganization,
  listApiKeys,
  listOrganizations,
  revokeApiKey,
} from "../../service/index.js";
import { resolveOrganization } from "../context.js";
import { OUT_OPTION_HELP, writeListOut } from "../list-out.js";
import { renderKeyValues, renderTable } from "../output.js";
import { action, examples, type ProgramHooks } from "../program.js";

export function registerOrgs(program: Command, hooks: ProgramHooks): void {
  const orgs = program
    .command("orgs")
    .description(
      "Organizations of the local store (each has its own clients, configurations, themes and keys).",
    );
  examples(
    orgs
      .command("create <name>")
      .description("Create an organization and its first API key (shown once).")
      .action(
        action(hooks, async (ctx, name: string) => {
          const { organization, apiKey } = await createOrganization(await ctx.service(), name);
          if (ctx.out.json)
            ctx.out.printJson({
              organization_uuid: organization.uuid,
              name: organization.name,
              api_key: apiKey.key,
            });
          else
            ctx.out.line(
              renderKeyValues([
                ["Organization", `${organization.name}  ${organization.uuid}`],
                ["API key (shown once)", apiKey.key],
              ]),
            );
        }),
      ),
    "lotwise orgs create 'Acme Advisors' --store firm.db",
  );
  examples(
    orgs
      .command("list")
      .description("List the organizations of the store.")
      .option("--out <file>", OUT_OPTION_HELP)
      .action(
        action(hooks, async (ctx, opts: { out?: string }) => {
          const list = await listOrganizations(await ctx.service());
          if (opts.out)
            await writeListOut(ctx.out, opts.out, "organizations", list, [
              { header: "organization_uuid", value: (o) => o.uuid },
              { header: "name", value: (o) => o.name },
              { header: "created", value: (o) => o.created },
            ]);
          else if (ctx.out.json) ctx.out.printJson(list);
          else
            ctx.out.line(
              renderTable(list, [
                { header: "Organization", value: (o) => o.uuid },
                { header: "Name", value: (o) => o.name },
                { header: "Created", value: (o) => o.created },
              ]),
            );
        }),
      ),
    "lotwise orgs list --store firm.db",
    "lotwise orgs list --store firm.db --out orgs.json",
  );

  const keys = program
    .command("keys")
    .description(
      "API keys of an organization (local store only; a key is shown once, only its hash is kept).",
    );
  examples(
    keys
      .command("create")
      .description("Issue a new API key for the organization.")
      .option("--label <label>", "what the key is for")
      .action(
        action(hooks, async (ctx, opts: { label?: string }) => {
          const svc = await ctx.service();
          const org = await resolveOrganization(svc.store, ctx.options.org);
          const k = await createApiKey(svc, org, opts.label ?? null);
          if (ctx.out.json)
            ctx.out.printJson({
              id: k.record.id,
              organization_uuid: org,
              label: k.record.label,
              api_key: k.key,
            });
          else
            ctx.out.line(
              renderKeyValues([
                ["Key id", k.record.id],
                ["Label", k.record.label],
                ["API key (shown once)", k.key],
              ]),
            );
        }),
      ),
    "lotwise keys create --label ci --org 3f0c...",
  );
  examples(
    keys
      .command("list")
      .description("List the organization's keys (ids and prefixes, never the secrets).")
      .option("--out <file>", OUT_OPTION_HELP)
      .action(
        action(hooks, async (ctx, opts: { out?: string }) => {
          const svc = await ctx.service();
          const list = await listApiKeys(svc, await resolveOrganization(svc.store, ctx.options.org));
          if (opts.out)
            await writeListOut(ctx.out, opts.out, "API keys", list, [
              { header: "key_id", value: (k) => k.id },
              { header: "prefix", value: (k) => k.prefix },
              { header: "label", value: (k) => k.label },
              { header: "created", value: (k) => k.created },
              { header: "last_used_at", value: (k) => k.lastUsedAt },
              { header: "revoked_at", value: (k) => k.revokedAt },
            ]);
          else if (ctx.out.json) ctx.out.printJson(list);
          else
            ctx.out.line(
              renderTable(list, [
                { header: "Key id", value: (k) => k.id },
                { header: "Prefix", value: (k) => `${k.prefix}...` },
                { header: "Label", value: (k) => k.label },
                { header: "Created", value: (k) => k.created },
                { header: "Last used", value: (k) => k.lastUsedAt },
                { header: "Revoked", value: (k) => k.revokedAt },
              ]),
            );
        }),
      ),
    "lotwise keys list",
    "lotwise keys list --out keys.csv",
  );
  examples(
    keys
      .command("revoke <keyId>")
      .description("Revoke a key: requests with it get 401 from then on.")
      .action(
        action(hooks, async (ctx, id: string) => {
          const svc = await ctx.service();
          const k = await revokeApiKey(svc, await resolveOrganization(svc.store, ctx.options.org), id);
          if (ctx.out.json) ctx.out.printJson(k);
          else ctx.out.line(`Revoked key ${k.id} at ${k.revokedAt}.`);
        }),
      ),
    "lotwise keys revoke 9f1c2a3b4d5e",
  );
}
