/**
 * The HTTP client under the server's rate limit: a request refused with 429 `rate_limited` is sent again after
 * the server's Retry-After (the server refused it before doing anything), so remote batch commands slow down to
 * the limit instead of failing; with retries off, or past them, the 429 reaches the caller with its code.
 */
import { afterEach, describe, expect, it } from "vitest";
import { HttpClient, type HttpClientOptions, RemoteServiceError } from "../src/client/index.js";
import { proposalResponseSchema } from "../src/contract/index.js";
import { createApp } from "../src/server/index.js";
import { createTestStore, seedOrganization, type TestStore } from "./helpers/fixture.js";

const opened: TestStore[] = [];
afterEach(() => {
  for (const t of opened.splice(0)) t.close();
});

async function setup(options: Partial<HttpClientOptions> = {}, clockMoves = true) {
  const t = await createTestStore();
  opened.push(t);
  const seeded = await seedOrganization(t, t.orgA);
  let now = 0;
  // One request at once, then one a second (60 a minute), on a clock the client's sleep moves.
  const app = createApp({ ctx: t.ctx, rateLimit: { perMinute: 60, burst: 1, now: () => now } });
  const slept: number[] = [];
  let sent = 0;
  const client = new HttpClient({
    url: "http://lotwise.test",
    apiKey: t.orgA.apiKey,
    fetch: (async (input: string, init?: RequestInit) => {
      sent += 1;
      return Promise.resolve(await app.request(input, init));
    }) as typeof fetch,
    sleep: async (ms) => {
      slept.push(ms);
      if (clockMoves) now += ms;
    },
    ...options,
  });
  const propose = () =>
    client.request(
      "POST",
      `/api/v1/custom/org/${t.orgA.uuid}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}/proposal/`,
      {
        operation: "createProposal",
        body: { optimized_weights: [{ ticker: t.usTickers[2]!, weight: "0.4" }] },
        schema: proposalResponseSchema,
      },
    );
  return { propose, slept, sent: () => sent };
}

describe("HTTP client under the server's rate limit", () => {
  it("waits the Retry-After of a 429 rate_limited answer and sends the request again", async () => {
    const { propose, slept, sent } = await setup();
    await propose();
    const second = await propose();
    expect(second.orders.length).toBeGreaterThan(0);
    expect(slept).toEqual([1000]);
    expect(sent()).toBe(3);
  });

  it("passes the 429 on with its code once its retries are used up, or when they are off", async () => {
    // The clock stands still: every retry is refused again.
    const stuck = await setup({ rateLimitRetries: 2 }, false);
    await stuck.propose();
    await expect(stuck.propose()).rejects.toMatchObject({ status: 429, code: "rate_limited" });
    expect(stuck.slept).toEqual([1000, 1000]);
    expect(stuck.sent()).toBe(4);
    const off = await setup({ rateLimitRetries: 0 });
    await off.propose();
    const err = await off.propose().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteServiceError);
    expect(err).toMatchObject({ status: 429, code: "rate_limited" });
    expect(off.slept).toEqual([]);
    // A Retry-After longer than the client will wait is reported at once too.
    const impatient = await setup({ maxRetryWaitMs: 500 });
    await impatient.propose();
    await expect(impatient.propose()).rejects.toMatchObject({ code: "rate_limited" });
    expect(impatient.slept).toEqual([]);
  });
});
