import { createIndex } from '@toolplane/toolindex';
import { createLocalRegistry, createRunner } from '@toolplane/toolrun';

// The scripted multi-step task of the benchmark and the example: 24 customers, each with 30
// orders; the question is which customers spent over 1,500 in total, and how much. Done by plain
// tool calling, the model reads every order of every customer; in code mode, only the answer.

/** The customers of the task. */
export const CUSTOMERS = Array.from({ length: 24 }, (_, i) => ({
  id: `c${String(i + 1).padStart(2, '0')}`,
  name: `Customer ${String(i + 1)}`,
  region: ['north', 'south', 'east', 'west'][i % 4] as string,
}));

/** The orders of one customer: 30 of them, with the detail a real order system returns. */
export function ordersOf(customer: string): Record<string, unknown>[] {
  const seed = Number(customer.slice(1));
  return Array.from({ length: 30 }, (_, i) => ({
    id: `${customer}-o${String(i + 1)}`,
    customer,
    total: ((seed * 31 + i * 17) % 97) + 0.25,
    currency: 'EUR',
    status: i % 5 === 0 ? 'refunded' : 'paid',
    placedAt: new Date(Date.UTC(2026, i % 12, (i % 27) + 1)).toISOString(),
    lines: [{ sku: `sku-${String(i % 9)}`, quantity: 1 + (i % 3) }],
  }));
}

/** The task's answer: customers whose paid orders total over 1,500, largest first. */
export function expectedAnswer(): { customer: string; spent: number }[] {
  return CUSTOMERS.map((customer) => ({
    customer: customer.name,
    spent: ordersOf(customer.id)
      .filter((order) => order.status === 'paid')
      .reduce((sum, order) => sum + (order.total as number), 0),
  }))
    .filter((row) => row.spent > 1_500)
    .sort((a, b) => b.spent - a.spent);
}

/** The program a model writes for the task in code mode. */
export const TASK_PROGRAM = `
const customers = await tools.shop.list_customers();
const rows = [];
for (const customer of customers) {
  const orders = await tools.shop.list_orders({ customer: customer.id });
  const spent = orders.filter((o) => o.status === 'paid').reduce((sum, o) => sum + o.total, 0);
  if (spent > 1500) rows.push({ customer: customer.name, spent });
}
rows.sort((a, b) => b.spent - a.spent);
console.log('customers checked:', customers.length);
return rows;
`;

/** The shop's two tools in an index and runner (a `ToolSource`). */
export function shopSource(): {
  index: ReturnType<typeof createIndex>;
  runner: ReturnType<typeof createRunner>;
} {
  const index = createIndex();
  const local = createLocalRegistry()
    .register('list_customers', () => CUSTOMERS)
    .register('list_orders', (args) => ordersOf((args as { customer: string }).customer));
  index.registerTool(
    {
      namespace: 'shop',
      name: 'list_customers',
      description: 'Lists every customer: ID, name and region.',
      inputSchema: { type: 'object', properties: {} },
    },
    { kind: 'local', local: { name: 'list_customers' } },
  );
  index.registerTool(
    {
      namespace: 'shop',
      name: 'list_orders',
      description: "Lists one customer's orders, with their totals, status and lines.",
      inputSchema: {
        type: 'object',
        properties: { customer: { type: 'string', description: 'The customer ID.' } },
        required: ['customer'],
      },
    },
    { kind: 'local', local: { name: 'list_orders' } },
  );
  return { index, runner: createRunner({ index, local }) };
}
