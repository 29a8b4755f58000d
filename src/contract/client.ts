/**
 * @module contract/client
 * Clients: the update body of endpoint 6, the client response, and the create extension.
 */
import * as z from "zod";
import { accountSchema, assetClassSettingListWriteSchema, holdingsWriteSchema } from "./account.js";
import { customizationConfigWriteSchema } from "./portfolio-config.js";
import { expectedMessage, isoDatetime, jsonValueSchema, nonEmptyString, uuid } from "./primitives.js";
import { describe, named } from "./registry.js";

/** Body of a client update (endpoint 6). Every field optional; null clears external_id, customization_config and portfolio_config_uuid. */
export const clientUpdateSchema = named(
  z.strictObject(
    {
      external_id: describe(nonEmptyString(255), "your identifier of the client").nullable().optional(),
      holdings: holdingsWriteSchema.optional(),
      metadata: jsonValueSchema.optional(),
      customization_config: describe(
        customizationConfigWriteSchema.nullable(),
        "configuration overrides (write shape without status); null removes them",
      ).optional(),
      portfolio_config_uuid: describe(uuid(), "portfolio configuration to follow").nullable().optional(),
      asset_class_settings: describe(
        assetClassSettingListWriteSchema(),
        "per asset class implementation; replaces the list",
      ).optional(),
      account_uuid: describe(
        uuid(),
        "extension: the account that holdings, customization_config, portfolio_config_uuid and asset_class_settings apply to; default the client's first account (created when the client has none)",
      ).optional(),
    },
    { error: expectedMessage("an object") },
  ),
  "ClientUpdate",
  "Body of a client update (endpoint 6).",
);
/** Body of a client update. */
export type ClientUpdate = z.infer<typeof clientUpdateSchema>;

/** Client response. `metadata` (after `accounts`) is an extension. */
export const clientSchema = named(
  z.strictObject({
    uuid: uuid(),
    external_id: z.string().nullable(),
    created: isoDatetime(),
    modified: isoDatetime(),
    accounts: z.array(accountSchema),
    metadata: jsonValueSchema,
  }),
  "Client",
  "A client with its accounts.",
);
/** Client response. */
export type Client = z.infer<typeof clientSchema>;

/** Response of the client list extension. */
export const clientListSchema = named(z.array(clientSchema), "ClientList", "Clients of an organization.");
/** Response of the client list extension. */
export type ClientList = z.infer<typeof clientListSchema>;

/** Body of client creation (extension). */
export const clientCreateSchema = named(
  z.strictObject(
    {
      external_id: describe(nonEmptyString(255), "your identifier of the client").optional(),
      metadata: jsonValueSchema.optional(),
    },
    { error: expectedMessage("an object") },
  ),
  "ClientCreate",
  "Body of client creation (extension).",
);
/** Body of client creation. */
export type ClientCreate = z.infer<typeof clientCreateSchema>;
