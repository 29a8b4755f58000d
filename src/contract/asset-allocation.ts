/**
 * @module contract/asset-allocation
 * Asset allocations (sleeve weights) of a configuration or composite asset class, with tilts. Target
 * allocations are fractions of the portfolio (0.6 = 60%); a list may not exceed 1 in total nor name a
 * sleeve twice.
 */
import * as z from "zod";
import { ContractDecimal, plainDecimalOrUndefined } from "./decimal.js";
import { bool, expectedMessage, isoDatetime, numericString, uuid } from "./primitives.js";
import { describe, named } from "./registry.js";

/** Tolerance on the total of target allocations above 1 (rounding of thirds etc.). */
export const ALLOCATION_TOTAL_TOLERANCE = "0.0001";

/** A tilt in a write: a weight adjustment toward exactly one theme or one index. */
export const tiltWriteSchema = named(
  z
    .strictObject({
      weight_adjustment: describe(numericString(), "weight adjustment, fraction (negative tilts away)"),
      theme_uuid: uuid().nullable().optional(),
      index_uuid: uuid().nullable().optional(),
    })
    .refine((t) => (t.theme_uuid == null) !== (t.index_uuid == null), {
      error: "a tilt names exactly one of theme_uuid or index_uuid",
      path: ["theme_uuid"],
    }),
  "TiltWrite",
  "A tilt toward a theme or an index, in a write.",
);
/** A tilt in a write. */
export type TiltWrite = z.infer<typeof tiltWriteSchema>;

/** A tilt in a read: the theme or index object it points to (the other is null). */
export const tiltReadSchema = named(
  z.strictObject({
    weight_adjustment: numericString(),
    theme: z
      .strictObject({ uuid: uuid(), name: z.string(), published_at: isoDatetime().nullable() })
      .nullable(),
    index: z.strictObject({ uuid: uuid(), name: z.string(), status: z.string() }).nullable(),
  }),
  "TiltRead",
  "A tilt toward a theme or an index, in a read.",
);
/** A tilt in a read. */
export type TiltRead = z.infer<typeof tiltReadSchema>;

/** An asset allocation, write item. */
export const assetAllocationWriteSchema = named(
  z
    .strictObject({
      asset_class_uuid: uuid(),
      target_allocation: describe(numericString({ min: "0", max: "1" }), "fraction of the portfolio, 0..1"),
      direct_indexing_enabled: describe(bool(), "hold the sleeve's constituents directly").optional(),
      tilts: describe(
        z.array(tiltWriteSchema, { error: expectedMessage("an array of tilts") }),
        "tilts of the sleeve; the sum of |weight_adjustment| is at most 1 (docs/targets.md)",
      ).optional(),
    })
    .superRefine((item, ctx) => {
      let moved = new ContractDecimal(0);
      for (const [j, t] of (item.tilts ?? []).entries()) {
        moved = moved.plus(plainDecimalOrUndefined(t.weight_adjustment)?.abs() ?? 0);
        if (moved.greaterThan(1)) {
          ctx.addIssue({
            code: "custom",
            path: ["tilts", j, "weight_adjustment"],
            message: `the tilts of a sleeve may move at most all of it: the sum of |weight_adjustment| reaches ${moved.toFixed()} here; at most 1`,
          });
          return;
        }
      }
    }),
  "AssetAllocationWrite",
  "One sleeve and its target allocation, in a write.",
);
/** An asset allocation, write item. */
export type AssetAllocationWrite = z.infer<typeof assetAllocationWriteSchema>;

/** Schema of a list of asset allocations in a write: no sleeve twice, total at most 1 (+ tolerance). */
export function assetAllocationListWriteSchema() {
  return z
    .array(assetAllocationWriteSchema, { error: expectedMessage("an array of asset allocations") })
    .superRefine((items, ctx) => {
      const seen = new Map<string, number>();
      let total = new ContractDecimal(0);
      items.forEach((item, i) => {
        const first = seen.get(item.asset_class_uuid.toLowerCase());
        if (first !== undefined)
          ctx.addIssue({
            code: "custom",
            path: [i, "asset_class_uuid"],
            message: `asset class ${item.asset_class_uuid} is already allocated at index ${first}`,
          });
        else seen.set(item.asset_class_uuid.toLowerCase(), i);
        total = total.plus(plainDecimalOrUndefined(item.target_allocation) ?? 0);
      });
      if (total.minus(ALLOCATION_TOTAL_TOLERANCE).greaterThan(1))
        ctx.addIssue({
          code: "custom",
          path: [],
          message: `target allocations add up to ${total.toFixed()}; they may not exceed 1`,
        });
    });
}

/** An asset allocation, read item; `child_asset_allocations` nests the allocations of a composite sleeve. */
export const assetAllocationReadSchema = named(
  z.strictObject({
    asset_class_uuid: uuid(),
    asset_class_name: z.string(),
    asset_class_description: z.string().nullable(),
    benchmark_index_identifier: z.string().nullable(),
    benchmark_index_name: z.string().nullable(),
    benchmark_symbol: z.string().nullable(),
    single_security_theme_asset_id: z.string().nullable(),
    single_security_symbol: z.string().nullable(),
    is_composite: bool(),
    get child_asset_allocations(): z.ZodArray<typeof assetAllocationReadSchema> {
      return z.array(assetAllocationReadSchema);
    },
    archived_at: isoDatetime().nullable(),
    target_allocation: numericString({ min: "0", max: "1" }),
    direct_indexing_enabled: bool(),
    tilts: z.array(tiltReadSchema),
  }),
  "AssetAllocationRead",
  "One sleeve with its details and target allocation, in a read; composite sleeves nest their children.",
);
/** An asset allocation, read item. */
export type AssetAllocationRead = z.infer<typeof assetAllocationReadSchema>;
