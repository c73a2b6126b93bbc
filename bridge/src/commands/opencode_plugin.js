// zellij-mcp's hooks for opencode, given for one launch or by setup for the
// agents a person starts: each event named below is passed to
// `zellij-mcp hook`, which tells the pane's plugin. Events of sessions a
// session started (a task's) are not the agent's.
import { spawn } from "node:child_process";

const BRIDGE = __BRIDGE__;
const EVENTS = new Set(__EVENTS__);
const tasks = new Set();
// Loaded twice (setup's copy and a launch's), only the first tells: two
// queues could tell one turn's events out of order.
const FIRST = !globalThis.zellijMcpHooks;
globalThis.zellijMcpHooks = true;
// One hook at a time, in the events' order: a turn's last `busy` comes
// right before its `idle`.
let queue = Promise.resolve();

function tell(payload) {
  queue = queue.then(
    () =>
      new Promise((done) => {
        try {
          const hook = spawn(BRIDGE, ["hook"], { stdio: ["pipe", "ignore", "ignore"] });
          hook.on("error", done);
          hook.on("exit", done);
          hook.stdin.on("error", () => {});
          hook.stdin.end(payload);
          hook.unref();
        } catch {
          // The hook never gets in the program's way.
          done();
        }
      }),
  );
}

export const ZellijMcpHooks = async () => (FIRST ? { event: told } : {});

async function told({ event }) {
  const props = event.properties ?? {};
  const session = props.sessionID ?? props.info?.id;
  if (event.type === "session.created" && props.info?.parentID) tasks.add(session);
  if (!EVENTS.has(event.type) || tasks.has(session)) return;
  const payload = JSON.stringify({
    hook_event_name: event.type,
    session_id: session,
    status: props.status?.type,
    permission: props.permission,
  });
  tell(payload);
}
