// SPDX-License-Identifier: GPL-2.0-or-later
// The runner of the plain gjs unit tests (shell/tests/common.js,
// shell/gnome/tests/unit.js, shell/kde/tests/unit.js):
//
//     import {expect, same, summarize, test} from '<path>/shell/tests/gjsunit.js';
//     test('what it checks', () => { same(1 + 1, 2, 'sum'); });
//     await test('an async one', async () => { ... });
//     summarize();
//
// Each test prints one line, "PASS name" (with ": detail" when its body
// returns one) or "FAIL name: message"; summarize() prints "N passed,
// N failed" and exits 1 on a failure.

const results = [];

function record(name, ok, text) {
    results.push(ok);
    if (ok)
        print(`PASS ${name}${text ? `: ${text}` : ''}`);
    else
        print(`FAIL ${name}: ${text}`);
}

// Runs `body` now. A body that returns a promise (an async one) is recorded
// when it settles, and the promise test() returns settles then: await it
// so that the test ends before the next starts.
export function test(name, body) {
    let detail;
    try {
        detail = body();
    } catch (error) {
        record(name, false, error.message);
        return Promise.resolve();
    }
    if (detail instanceof Promise) {
        return detail.then(value => record(name, true, value),
            error => record(name, false, error.message));
    }
    record(name, true, detail);
    return Promise.resolve();
}

export function expect(condition, message) {
    if (!condition)
        throw new Error(message);
}

// The two compared as JSON.
export function same(actual, expected, what) {
    const a = JSON.stringify(actual);
    const e = JSON.stringify(expected);
    expect(a === e, `${what}: got ${a}, expected ${e}`);
}

// Prints "N passed, N failed"; exits 1 on a failure.
export function summarize() {
    const failed = results.filter(ok => !ok).length;
    print(`${results.length - failed} passed, ${failed} failed`);
    if (failed > 0)
        imports.system.exit(1);
}
