// Real customer-service agent runs: the four recorded runs in LangGraph's "Customer Support Bot" tutorial, and four
// more from earlier drafts of the notebook (EARLIER_DRAFTS below)
// (docs/docs/tutorials/customer-support/customer-support.ipynb in langchain-ai/langgraph, MIT; the docs folder was
// deleted from the repository in b4630d8, so the file is read at that commit's parent). A Claude-based Swiss Airlines
// support assistant with flight, hotel, car-rental, excursion and policy tools answers the same 10 scripted customer
// messages in each of the tutorial's four designs (part 1 zero-shot tools; part 2 user confirmation before every
// tool; part 3 confirmation before sensitive tools only; part 4 specialised sub-workflows with routing tools).
// Parts 1, 3 and 4 are taken; part 2's output shows no tool results (see below).
// The cell output is LangChain's pretty print of every message: "==== Human/Ai/Tool Message ====" headers, an AI
// message's "Tool Calls:" block ("  name (id)", " Call ID: id", "  Args:", "    key: value" lines), and each tool
// message's "Name: tool" and content (the notebook's printer cuts long content at 1,500 chars, "... (truncated)").
//
// Converted to loopguard replay JSONL, one conversation = one run: round = the index of the AI message (human turns
// leave gaps in the rounds), tool = the call's name, args = the printed Args lines (values kept as the printed
// strings), result = the tool message's content; "Error: ..." tool messages (LangGraph's ToolNode fallback) become
// {error: {type: 'ToolError', message}}. Tool messages are matched to the calls of the AI message before them, in order.
//
// Outcome: this is a tutorial, not a benchmark: there is no success flag. Each run is labelled by reading (rule in
// SOURCES.md) and the manifest says so (`labelBasis: "reading"`).
import { gitShow, truncate, analyzeLoop } from './lib.mjs';

export const SOURCE = { repo: 'langchain-ai/langgraph', path: 'docs/docs/tutorials/customer-support/customer-support.ipynb', licence: 'MIT' };

// Labels by reading the four transcripts (see SOURCES.md): every scripted request is handled — answered from a tool
// result, booked, or declined with the tool result as the reason — and no tool call repeats an earlier call's
// arguments and result without the customer having asked something new in between.
const READ = {
  1: { label: 'healthy', why: 'all 10 customer messages handled: policy looked up, flight moved, hotel and car booked then updated, excursions searched; ends recommending a museum it cannot pre-book' },
  3: { label: 'healthy', why: 'all 10 customer messages handled, confirmation only for bookings; ends booking the chosen museum (awaiting the last confirmation)' },
  4: { label: 'healthy', why: 'all 10 customer messages handled by the routed sub-assistants; one call to a non-existent tool (check_availability) gets a KeyError and the agent recovers; ends reporting no vineyard tour is available for the dates and offering alternatives' },
};

const HEADER = /^=+ (Human|Ai|Tool) Message =+$/m;

export function parseTranscript(text) {
  const clean = text.replace(/\x1b\[[0-9;]*m/g, '');
  const parts = clean.split(/^(=+ (?:Human|Ai|Tool) Message =+)$/m);
  const messages = [];
  for (let i = 1; i < parts.length; i += 2) {
    const kind = parts[i].match(HEADER)[1];
    // The confirmation prompt of parts 2 and 3 is printed by the tutorial's loop, not a message.
    const body = parts[i + 1].replace(/\nDo you approve of the above actions\?[^\n]*\n(?:[^\n]*\n)?/g, '\n').replace(/^\n+|\n+$/g, '');
    messages.push({ kind, body });
  }
  return messages;
}

function toolCalls(body) {
  const block = body.split('\nTool Calls:\n')[1];
  if (!block) return [];
  const calls = [];
  let current;
  for (const line of block.split('\n')) {
    let m;
    if ((m = line.match(/^  (\w+) \((\S+)\)$/))) calls.push((current = { tool: m[1], callId: m[2], args: {} }));
    else if ((m = line.match(/^    ([A-Za-z_]\w*): (.*)$/)) && current) current.args[m[1]] = m[2];
  }
  return calls;
}

/**
 * Earlier drafts of the same notebook (examples/customer-support/customer-support.ipynb, spring 2024, before the
 * docs moved) hold runs of their own: different Anthropic tool-use ids, another day's database, other answers.
 * Only runs that share no tool-call id with the runs above, or with each other, are taken (several drafts reprint
 * a longer or shorter span of the same run: the 2024-05-02 part 3 and part 4 outputs and the 2024-04-30 output
 * are the runs above, printed from an earlier message). Labelled by reading, with the same rule.
 */
export const EARLIER_DRAFTS = [
  {
    commit: '0c2dcbefded87369af84de0386d3230e9297c146', output: 0, part: 1, date: '2024-05-02',
    label: 'healthy',
    why: 'all 10 customer messages handled: flight time from the ticket, policy looked up, same-day search finds only the booked flight, moved to next week, hotel and car searched and booked (the car cancelled and rebooked at the cheapest option on request), excursion searches all return [] and the agent says so and suggests museums it cannot book',
  },
  {
    commit: '8ad3478ea6740c20850ff4bab65addaf868ffecd', output: 0, part: 1, date: '2024-05-07',
    label: 'failed',
    why: 'the graph ran without the passenger id: fetch_user_flight_information returns [], the agent asks the customer for the ticket number instead of answering, never changes the flight, and searches hotels in Zurich (the trip is to Basel); the printed output ends at the hotel search',
  },
  {
    commit: 'b0ce42bce8299bc429c16f5d0fd075b6de23509b', output: 3, part: 4, date: '2024-06-13',
    label: 'failed',
    why: 'the flight time is stated after a web search that, as the agent says itself, does not contain it (no flight-information call); the flight searches for June return [], and the "next available" flight it rebooks to (6:25am, flight id 29375) is in no tool result; the museum offer quotes opening hours and prices from no tool result, and nothing is booked',
  },
  {
    commit: 'bb4490e0bf64ef48f99be194af5a2f9de1796099', output: 3, part: 4, date: '2024-06-14',
    label: 'failed',
    why: 'the hand-backs fail (KeyError(\'TravelAssistant\'), KeyError(\'CompleteOrEscalate\')), the hotel sub-assistant calls tools it does not have (KeyError(\'search_hotels\'), KeyError(\'search_accommodations\')) and books no hotel, and no car is booked (an economy car "appears available" at Zurich airport); the conversation is not served',
  },
];

const EARLIER_PATH = 'examples/customer-support/customer-support.ipynb';

function transcriptsOf(gitDir, commit, path) {
  const nb = JSON.parse(gitShow(gitDir, commit, path));
  return nb.cells
    .filter((c) => c.cell_type === 'code')
    .map((c) => (c.outputs ?? []).map((o) => (Array.isArray(o.text) ? o.text.join('') : o.text ?? '')).join('').replace(/\x1b\[[0-9;]*m/g, ''))
    .filter((t) => t.includes('Tool Calls:'));
}

/** One printed conversation → replay lines and the (action, observation) steps the loop rules read. */
function convert(text, run) {
  const messages = parseTranscript(text);
  const lines = [];
  const steps = [];
  let aiIndex = 0, pending = [], unattributed = 0;
  for (const message of messages) {
    if (message.kind === 'Ai') { aiIndex++; pending = toolCalls(message.body).map((c) => ({ ...c, round: aiIndex })); continue; }
    if (message.kind !== 'Tool') { pending = []; continue; }
    const call = pending.shift();
    // Part 4's graph writes its own ToolMessage when a sub-assistant hands back ("Resuming dialog with the host
    // assistant..."), answering a routing call the printer did not show: no call to attribute it to, so not a call.
    if (!call) { unattributed++; continue; }
    const content = message.body.replace(/^Name: \w+\n\n?/, '');
    const outcome = /^Error: /.test(content) ? { error: { type: 'ToolError', message: truncate(content) } } : { result: truncate(content) };
    lines.push(JSON.stringify({ run, round: call.round, tool: call.tool, args: call.args, callId: call.callId, ...outcome }));
    steps.push({ action: JSON.stringify([call.tool, call.args]), observation: content });
  }
  return { lines, steps, unattributed };
}

const TASK = 'Swiss Airlines customer support: 10 scripted customer messages (flight change, hotel, car, excursions)';
const MODEL = 'claude-3 (Anthropic; exact model not printed)';

export function build({ gitDir, commit, write }) {
  const outputs = transcriptsOf(gitDir, commit, SOURCE.path);
  if (outputs.length !== 4) throw new Error(`expected the tutorial's 4 recorded runs, found ${outputs.length}`);
  const entries = [];
  const skipped = [];
  const callIds = new Set();
  outputs.forEach((text, index) => {
    const part = index + 1;
    const run = `langgraph-customer-support-part-${part}`;
    const { lines, steps, unattributed } = convert(text, run);
    // Part 2's printer shows the calls but none of the tool results (its confirmation loop prints before the tools
    // run), so there is nothing to replay; calls of other parts whose results were not printed are left out the same way.
    if (lines.length === 0) { skipped.push(`part ${part}: no tool result printed`); return; }
    for (const id of text.match(/toolu_\w+/g) ?? []) callIds.add(id);
    const la = analyzeLoop(steps);
    // The loop rules are for failed runs; on these runs they only annotate (part 1 ends with five reworded
    // search_trip_recommendations calls that all return [] before the agent answers from its own knowledge).
    const note = la.looping ? `; note: the tail rule "${la.rule}" matches calls #${la.loopStart}–#${steps.length - 1} (${[...new Set(steps.slice(la.loopStart).map((s) => s.observation.trim()))].map((o) => JSON.stringify(o.slice(0, 40))).join(', ')})` : '';
    const file = `langgraph-customer-support/${run}.jsonl`;
    write(file, lines.join('\n') + '\n');
    entries.push({ file, format: 'loopguard-jsonl', kind: 'customer service', agent: `LangGraph customer-support tutorial, part ${part}`, model: MODEL, task: TASK, label: READ[part].label, labelBasis: 'reading', reason: `tutorial run, no benchmark verdict; read: ${READ[part].why}${note}${unattributed ? `; ${unattributed} hand-back tool message(s) without a printed call left out` : ''}`, calls: lines.length, source: { ...SOURCE, commit } });
  });
  for (const draft of EARLIER_DRAFTS) {
    const text = transcriptsOf(gitDir, draft.commit, EARLIER_PATH)[draft.output];
    if (text === undefined) throw new Error(`${draft.commit}: no recorded run at output ${draft.output}`);
    const ids = text.match(/toolu_\w+/g) ?? [];
    const shared = ids.filter((id) => callIds.has(id));
    if (shared.length > 0) throw new Error(`${draft.commit} output ${draft.output} shares ${shared.length} tool-call id(s) with a run already taken: the same run printed again`);
    for (const id of ids) callIds.add(id);
    const run = `langgraph-customer-support-${draft.date}-part-${draft.part}`;
    const { lines, steps, unattributed } = convert(text, run);
    const la = analyzeLoop(steps);
    // Healthy by reading; a run read as not served is looping when a loop rule fires, as for every source.
    const label = draft.label === 'healthy' ? 'healthy' : la.looping ? 'looping' : 'failed_no_loop';
    const rule = la.looping ? `; the loop rule "${la.rule}" matches calls #${la.loopStart}–#${steps.length - 1}` : '';
    const file = `langgraph-customer-support/${run}.jsonl`;
    write(file, lines.join('\n') + '\n');
    const entry = { file, format: 'loopguard-jsonl', kind: 'customer service', agent: `LangGraph customer-support tutorial (${draft.date} draft), part ${draft.part}`, model: MODEL, task: TASK, label, labelBasis: 'reading', reason: `tutorial run, no benchmark verdict; read: ${draft.why}${rule}${unattributed ? `; ${unattributed} hand-back tool message(s) without a printed call left out` : ''}`, calls: lines.length, source: { ...SOURCE, path: EARLIER_PATH, commit: draft.commit } };
    if (label === 'looping') entry.loopStart = la.loopStart;
    entries.push(entry);
  }
  return { entries, skipped };
}
