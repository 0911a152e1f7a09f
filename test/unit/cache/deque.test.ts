import { describe, expect, it } from "vitest";
import { Deque } from "../../../packages/kubekit/src/cache/deque.js";

describe("Deque", () => {
  it("is first in, first out, and reports its length", () => {
    const d = new Deque<number>();
    expect(d.shift()).toBeUndefined();
    d.push(1);
    d.push(2);
    expect(d.length).toBe(2);
    expect(d.shift()).toBe(1);
    d.push(3);
    expect(d.toArray()).toEqual([2, 3]);
    expect(d.shift()).toBe(2);
    expect(d.shift()).toBe(3);
    expect(d.shift()).toBeUndefined();
    expect(d.length).toBe(0);
  });

  it("keeps order and length across compactions", () => {
    const d = new Deque<number>();
    let pushed = 0;
    let shifted = 0;
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 3000; i++) d.push(pushed++);
      for (let i = 0; i < 2500; i++) expect(d.shift()).toBe(shifted++);
      expect(d.length).toBe(pushed - shifted);
    }
    expect(d.toArray()).toEqual(Array.from({ length: pushed - shifted }, (_, i) => shifted + i));
  });
});
