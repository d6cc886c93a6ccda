import { describe, expect, it } from 'vitest';
import { errorFingerprint, normalizeErrorMessage, stackFrames, topInAppFrame } from '../src/errors/error-fingerprint.js';

describe('error messages, normalized', () => {
  it.each([
    ['Order 4711 not found', 'Order ? not found'],
    ["User 'ada@example.com' has no access to project \"Apollo\"", 'User ? has no access to project ?'],
    ['Invalid token 9f1c2b7e4d3a5f60 for session 2b4c7e1a-9a8d-4a8f-b1c2-3d4e5f6a7b8c', 'Invalid token ? for session ?'],
    ['connect ECONNREFUSED 10.0.3.17:5432', 'connect ECONNREFUSED ?'],
    ['Timeout after 5000ms waiting for lock 0x7ffd1a2b', 'Timeout after ?ms waiting for lock ?'],
    ['Mail to ada@example.com bounced', 'Mail to ? bounced'],
    ['Cannot read properties of undefined (reading `total`)', 'Cannot read properties of undefined (reading ?)'],
    ['duplicate key value violates unique constraint "orders_pkey"', 'duplicate key value violates unique constraint ?'],
    ['request id req_8Hk2LmQ9xZ failed   twice\n on retry 2', 'request id ? failed twice on retry ?'],
    ['', ''],
  ])('%j', (message, normalized) => {
    expect(normalizeErrorMessage(message)).toBe(normalized);
  });
});

describe('the top in-app frame of a stack', () => {
  it.each([
    [
      'Node.js, past dependency frames',
      'TypeError: Cannot read properties of undefined\n    at Object.parse (/app/node_modules/json5/lib/parse.js:10:5)\n    at loadConfig (/app/src/config/load.ts:42:11)\n    at async main (/app/src/main.ts:7:3)',
      'loadConfig (config/load.ts)',
    ],
    ['Node.js, a bare location', 'Error: boom\n    at node:internal/process/task_queues:95:5\n    at file:///srv/app/dist/worker.js:12:9', '<anonymous> (dist/worker.js)'],
    [
      'Python, innermost last',
      'Traceback (most recent call last):\n  File "/srv/app/views.py", line 12, in checkout\n    charge(order)\n  File "/srv/app/payments.py", line 40, in charge\n    raise CardDeclined()\n  File "/usr/lib/python3/dist-packages/stripe/api.py", line 5, in call\nCardDeclined: declined',
      'charge (app/payments.py)',
    ],
    [
      'Java, past JDK frames',
      'java.lang.IllegalStateException: closed\n\tat java.base/java.util.Objects.requireNonNull(Objects.java:233)\n\tat com.acme.orders.OrderService.place(OrderService.java:88)\n\tat com.acme.web.Api.post(Api.java:12)',
      'com.acme.orders.OrderService.place (OrderService.java)',
    ],
    ['.NET', 'System.InvalidOperationException: nope\n   at System.Linq.Enumerable.First()\n   at Acme.Orders.Place(Order o) in /src/Orders.cs:line 42', 'Acme.Orders.Place (src/Orders.cs)'],
    ['Ruby', "app/models/order.rb:42:in `place'\napp/controllers/orders_controller.rb:10:in `create'", 'place (models/order.rb)'],
    ['only dependency frames: the innermost', 'Error: x\n    at a (/app/node_modules/lib/a.js:1:1)\n    at b (/app/node_modules/lib/b.js:2:2)', 'a (lib/a.js)'],
    ['no stack', '', ''],
  ])('%s', (_name, stack, frame) => {
    expect(topInAppFrame(stack)).toBe(frame);
  });

  it('reads Go frames with the function on the line above', () => {
    expect(stackFrames('goroutine 1 [running]:\nmain.handle(0x1)\n\t/app/handler.go:42 +0x1d\nnet/http.serve()\n\t/usr/local/go/src/net/http/server.go:10')).toEqual([
      { function: 'main.handle', file: '/app/handler.go' },
      { function: 'net/http.serve', file: '/usr/local/go/src/net/http/server.go' },
    ]);
  });
});

describe('fingerprints', () => {
  const stack = (file: string) => `CardDeclined: card declined\n    at charge (/app/src/${file}:42:11)\n    at handle (/app/src/server.ts:17:5)`;

  it('puts the same error with different ids, numbers and quoted values in one group', () => {
    const a = errorFingerprint('payments', { type: 'CardDeclined', message: "Card 4242 declined for order 'A-17' (user 9f1c2b7e4d3a5f60)", stack: stack('charge.ts') });
    const b = errorFingerprint('payments', { type: 'CardDeclined', message: "Card 1881 declined for order 'B-99' (user 0c7d8e9f1a2b3c4d)", stack: stack('charge.ts').replace(':42:11', ':44:3') });
    expect(a).toEqual(b);
    expect(a).toMatchObject({ type: 'CardDeclined', message: 'Card ? declined for order ? (user ?)', topFrame: 'charge (src/charge.ts)' });
    expect(a!.groupId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('makes another group for another top frame, type, service or message', () => {
    const base = { type: 'CardDeclined', message: 'declined', stack: stack('charge.ts') };
    const id = errorFingerprint('payments', base)!.groupId;
    expect(errorFingerprint('payments', { ...base, stack: stack('refund.ts') })!.groupId).not.toBe(id);
    expect(errorFingerprint('payments', { ...base, type: 'Timeout' })!.groupId).not.toBe(id);
    expect(errorFingerprint('checkout', base)!.groupId).not.toBe(id);
    expect(errorFingerprint('payments', { ...base, message: 'expired' })!.groupId).not.toBe(id);
  });

  it('takes the type from the stack when none is given, and leaves occurrences without an error ungrouped', () => {
    expect(errorFingerprint('web', { type: null, message: 'x is undefined', stack: 'TypeError: x is undefined\n    at f (/app/a.js:1:1)' })).toMatchObject({ type: 'TypeError' });
    expect(errorFingerprint('web', { type: null, message: null, stack: null })).toBeUndefined();
  });
});
