/**
 * @module contract/asset-class
 * Asset class (sleeve): the read shape of endpoint 5 and the create extension. An archived sleeve
 * (`archived_at` set) stays resolvable by existing references but cannot be newly assigned.
 */
import * as z from "zod";
import { assetAllocationListWriteSchema, assetAllocationReadSchema } from "./asset-allocation.js";
import { bool, displayName, expectedMessage, isoDatetime, themeAssetId, uuid } from "./primitives.js";
import { describe, named } from "./registry.js";

/** Sides of an event contract. */
export const EVENT_CONTRACT_SIDES = ["yes", "no"] as const;

/** Asset class, read shape. */
export const assetClassSchema = named(
  z.strictObject({
    uuid: uuid(),
    name: z.string().max(255),
    description: z.string().nullable(),
    benchmark_index_name: z.string().nullable(),
    benchmark_index_identifier: z.string().nullable(),
    benchmark_direct_indexing_supported: describe(
      z.boolean().nullable(),
      "whether the benchmark can be direct-indexed; null when the sleeve has no benchmark index",
    ),
    index_name: z.string().nullable(),
    index_uuid: uuid().nullable(),
    theme_name: z.string().nullable(),
    theme_uuid: uuid().nullable(),
    single_security_theme_asset_id: z.string().nullable(),
    single_security_symbol: z.string().nullable(),
    event_contract_theme_asset_id: z.string().nullable(),
    event_contract_side: z.enum(EVENT_CONTRACT_SIDES).nullable(),
    alternative_etf_theme_asset_ids: z.array(z.string()),
    permitted_implementation_uuids: z.array(uuid()),
    is_composite: describe(z.boolean(), "true when the sleeve contains child sleeve allocations"),
    asset_allocations: z.array(assetAllocationReadSchema),
    archived_at: describe(
      isoDatetime(),
      "set when archived; archived sleeves cannot be newly assigned",
    ).nullable(),
    created: isoDatetime(),
    modified: isoDatetime(),
  }),
  "AssetClass",
  "An asset class (sleeve).",
);
/** Asset class, read shape. */
export type AssetClass = z.infer<typeof assetClassSchema>;

/** Response of the asset-class list extension. */
export const assetClassListSchema = named(
  z.array(assetClassSchema),
  "AssetClassList",
  "Asset classes of an organization.",
);
/** Response of the asset-class list extension. */
export type AssetClassList = z.infer<typeof assetClassListSchema>;

/**
 * Body of asset-class creation (extension). A composite sleeve lists child allocations and nothing else to
 * invest in; a simple sleeve names what it invests in (benchmark index, single security or theme).
 */
export const assetClassCreateSchema = named(
  z
    .strictObject(
      {
        name: displayName(),
        description: z.string().max(10_000).nullable().optional(),
        benchmark_index_identifier: describe(
          z.string().min(1),
          "benchmark index the sleeve tracks, e.g. SP500",
        )
          .nullable()
          .optional(),
        single_security_theme_asset_id: describe(themeAssetId(), "the one security the sleeve holds")
          .nullable()
          .optional(),
        theme_uuid: describe(uuid(), "theme whose constituents the sleeve holds").nullable().optional(),
        alternative_etf_theme_asset_ids: z.array(themeAssetId()).optional(),
        permitted_implementation_uuids: z.array(uuid()).optional(),
        is_composite: describe(bool(), "true when the sleeve holds child sleeves; default false").optional(),
        asset_allocations: describe(
          assetAllocationListWriteSchema(),
          "child sleeves of a composite sleeve",
        ).optional(),
        archived: describe(bool(), "create the sleeve already archived; default false").optional(),
      },
      { error: expectedMessage("an object") },
    )
    .superRefine((body, ctx) => {
      const children = body.asset_allocations?.length ?? 0;
      if (body.is_composite === true && children === 0)
        ctx.addIssue({
          code: "custom",
          path: ["asset_allocations"],
          message: "a composite asset class needs at least one child allocation",
        });
      if (body.is_composite !== true && children > 0)
        ctx.addIssue({
          code: "custom",
          path: ["is_composite"],
          message: "child allocations require is_composite: true",
        });
      const target =
        body.benchmark_index_identifier != null ||
        body.single_security_theme_asset_id != null ||
        body.theme_uuid != null;
      if (body.is_composite !== true && !target)
        ctx.addIssue({
          code: "custom",
          path: [],
          message:
            "a non-composite asset class names what it invests in: benchmark_index_identifier, single_security_theme_asset_id or theme_uuid",
        });
    }),
  "AssetClassCreate",
  "Body of asset-class creation (extension).",
);
/** Body of asset-class creation. */
export type AssetClassCreate = z.infer<typeof assetClassCreateSchema>;
