#!/usr/bin/env python3
"""Writes one CPU-shaped trace in both formats: litmus (predatar) and STD (RAPID).

The same events, in the same order, with the same program locations, so that
`predatar check` and RAPID's WCP analyse the same execution. Shape: T threads
(default 32), L locks (100), V variables (10^4); a thread either accesses
memory or enters/leaves critical sections (well nested, at most 2 deep, a lock
held by one thread at a time). Inside a critical section of lock l it accesses
the variables l protects; outside, mostly its own variables, sometimes any
variable (the racy accesses). Deterministic for a seed.

Mapping (README "STD traces"): the k-th STD thread to appear is litmus thread
tk of block 0 (--std-threads lanes, what `predatar check` does without lockset;
t(32k) with warps); variables are global words; locks are device-scoped;
the STD program location N is the litmus position '@ loc:N'.

usage: gen_cpu_trace.py EVENTS OUT_PREFIX [--threads 32 --locks 100 --vars 10000 --seed 1 --std-threads lanes]
writes OUT_PREFIX.litmus and OUT_PREFIX.std
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("events", type=int)
    ap.add_argument("out")
    ap.add_argument("--threads", type=int, default=32)
    ap.add_argument("--locks", type=int, default=100)
    ap.add_argument("--vars", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--std-threads", choices=["warps", "lanes"], default="lanes",
                    help="the litmus side as predatar check --std-threads maps STD threads")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    T, L, V, N = a.threads, a.locks, a.vars, a.events
    protected = V // 2                      # variables 0..protected-1: lock l guards a slice
    per_lock = max(protected // L, 1)
    local_per_thread = max((V - protected) // T, 1)
    owner = [-1] * L
    held = [[] for _ in range(T)]
    lit = open(a.out + ".litmus", "w", buffering=1 << 20)
    std = open(a.out + ".std", "w", buffering=1 << 20)
    lit.write(f"# CPU-shaped trace: {T} threads, {L} locks, {V} variables, {N} events, seed {a.seed}\n")
    stride = 32 if a.std_threads == "warps" else 1
    lit.write(f"launch blocks=1 threads={stride * T}\n")
    lw, sw = lit.write, std.write
    rand, randrange = rng.random, rng.randrange
    count = 0
    # predatar numbers STD threads in order of first appearance: the litmus
    # side numbers them the same way, so both runs name the same threads.
    first_seen = {}

    def who(t):
        if t not in first_seen:
            first_seen[t] = stride * len(first_seen)
        return first_seen[t]

    def access(t, var, write, loc):
        op_l, op_s = ("wr", "w") if write else ("rd", "r")
        lw(f"t{who(t)}: {op_l} V{var} @ loc:{loc}\n")
        sw(f"T{t}|{op_s}(V{var})|{loc}\n")

    def lock(t, l, acquire, loc):
        op = "acq" if acquire else "rel"
        lw(f"t{who(t)}: {op} L{l} @ loc:{loc}\n")
        sw(f"T{t}|{op}(L{l})|{loc}\n")

    while count < N - sum(len(h) for h in held):
        t = randrange(T)
        h = held[t]
        r = rand()
        if h and r < 0.15:                                  # leave the innermost section
            l = h.pop()
            owner[l] = -1
            lock(t, l, False, 2)
        elif (not h and r < 0.10) or (h and len(h) < 2 and r < 0.18):
            l = randrange(L)
            if owner[l] != -1:
                continue                                    # busy: try another step
            owner[l] = t
            h.append(l)
            lock(t, l, True, 1)
        else:
            write = rand() < 0.3
            if h:                                           # a variable the section's lock guards
                var = h[-1] * per_lock + randrange(per_lock)
                loc = 10 + write
            elif rand() < 0.9:                              # the thread's own variables
                var = protected + t * local_per_thread + randrange(local_per_thread)
                loc = 20 + write
            else:                                           # anything: the racy accesses
                var = randrange(V)
                loc = 30 + write + 2 * (var % 16)
            access(t, var, write, loc)
        count += 1
    for t in range(T):                                      # close every section
        while held[t]:
            l = held[t].pop()
            lock(t, l, False, 2)
            count += 1
    lit.close()
    std.close()
    print(f"{count} events -> {a.out}.litmus, {a.out}.std")


if __name__ == "__main__":
    main()
