import { describe, expect, it } from "vitest";
import { tokenize } from "./lexer.js";

const kinds = (source: string) =>
  tokenize(source).map((t) => {
    switch (t.kind) {
      case "number":
      case "string":
        return `${t.kind}:${JSON.stringify(t.value)}@${t.start}`;
      case "identifier":
      case "keyword":
        return `${t.kind}:${t.name}@${t.start}`;
      case "punctuation":
        return `${t.text}@${t.start}`;
      case "bad_operator":
        return `bad:${t.raw}->${t.suggestion}@${t.start}`;
      case "invalid":
        return `invalid:${t.raw}@${t.start}`;
      case "error":
        return `error@${t.start}`;
      default:
        return `eof@${t.start}`;
    }
  });

describe("tokenize", () => {
  it("splits a filter into tokens with their offsets", () => {
    expect(kinds("country = 'US' and sector = 45 and dividend_yield > 1%")).toEqual([
      "identifier:country@0",
      "=@8",
      'string:"US"@10',
      "keyword:and@15",
      "identifier:sector@19",
      "=@26",
      "number:45@28",
      "keyword:and@31",
      "identifier:dividend_yield@35",
      ">@50",
      "number:0.01@52",
      "eof@54",
    ]);
  });

  it("lexes the longest operator and maps aliases to canonical forms", () => {
    expect(kinds("a<=b>=c<>d!=e==f<g>h")).toEqual([
      "identifier:a@0",
      "<=@1",
      "identifier:b@3",
      ">=@4",
      "identifier:c@6",
      "!=@7",
      "identifier:d@9",
      "!=@10",
      "identifier:e@12",
      "=@13",
      "identifier:f@15",
      "<@16",
      "identifier:g@17",
      ">@18",
      "identifier:h@19",
      "eof@20",
    ]);
    expect(kinds("!a&&b||c")).toEqual([
      "keyword:not@0",
      "identifier:a@1",
      "keyword:and@2",
      "identifier:b@4",
      "keyword:or@5",
      "identifier:c@7",
      "eof@8",
    ]);
  });

  it("recognizes keywords in any case and lower-cases names", () => {
    expect(kinds("AND Or nOt IN Between IS NULL True FALSE Sector")).toEqual([
      "keyword:and@0",
      "keyword:or@4",
      "keyword:not@7",
      "keyword:in@11",
      "keyword:between@14",
      "keyword:is@22",
      "keyword:null@25",
      "keyword:true@30",
      "keyword:false@35",
      "identifier:sector@41",
      "eof@47",
    ]);
  });

  it("marks operators from other languages with the one meant", () => {
    expect(kinds("a === b !== c =< d => e =! f")).toEqual([
      "identifier:a@0",
      "bad:===->=@2",
      "identifier:b@6",
      "bad:!==->!=@8",
      "identifier:c@12",
      "bad:=<-><=@14",
      "identifier:d@17",
      "bad:=>->>=@19",
      "identifier:e@22",
      "bad:=!->!=@24",
      "identifier:f@27",
      "eof@28",
    ]);
  });

  it("does not take digits or '_' that follow a number as part of it unless they form one", () => {
    expect(kinds("12abc 1_ 1__0 1.2.3")).toEqual([
      "number:12@0",
      "identifier:abc@2",
      "number:1@6",
      "identifier:_@7",
      "number:1@9",
      "identifier:__0@10",
      "number:1.2@14",
      "number:0.3@17",
      "eof@19",
    ]);
  });

  it("skips spaces, tabs and line breaks and reports other characters as invalid", () => {
    expect(kinds(" \t\r\na\n;")).toEqual(["identifier:a@4", "invalid:;@6", "eof@7"]);
  });

  it("ends at the first lexical error", () => {
    expect(kinds("a = 'open")).toEqual(["identifier:a@0", "=@2", "error@4"]);
    expect(kinds("a = 1e+ and b")).toEqual(["identifier:a@0", "=@2", "error@4"]);
  });

  it("does not decode a \\u escape with fewer than four hex digits", () => {
    const tokens = tokenize("'\\u12'");
    expect(tokens[0]!.kind).toBe("error");
  });
});
