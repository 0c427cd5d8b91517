import { tool } from '@langchain/core/tools';
import { z } from 'zod';

/**
 * A LangChain `send_email` tool that takes 60 ms and then records its send in `sent`: long
 * enough for a test to abort the call while the function is still running (tool() rejects at
 * once with the abort's reason and lets the function run on), and to count what really went out.
 */
export function slowSendEmail(sent: string[]) {
  return tool(
    async ({ to }: { to: string }) => {
      await new Promise((resolve) => setTimeout(resolve, 60));
      sent.push(to);
      return 'sent';
    },
    { name: 'send_email', description: 'Send', schema: z.object({ to: z.string() }) },
  );
}
