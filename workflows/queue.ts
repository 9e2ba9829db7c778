// The merge queue workflow: one run per protected branch with the queue on (id
// queue/<repo id>/<branch>). It owns the queue's order; each round it reads the base, the entries'
// pull requests and the checks (one activity), drops entries that can no longer stay, builds the
// speculative commits of the first `depth` batches, and lands the front batch when its required
// checks pass, or ejects (a batch: splits) it when they fail or time out. Joins and leaves are
// updates; everything else that matters (statuses, pushes, closes) arrives as a `nudge` signal.
import {
  allHandlersFinished, condition, continueAsNew, log, proxyActivities, setHandler, upsertMemo, upsertSearchAttributes, workflowInfo,
} from '@temporalio/workflow';
import type { QueueActivities } from './queue-activity-types.js';
import { Mutex } from './mutex.js';
import { activityFailureCause } from './activity-failure.js';
import { RECORD_ACTIVITY_OPTIONS } from './activity-options.js';
import { queueBranchKey, queueLengthKey } from './search-attributes.js';
import {
  joinQueueUpdate, leaveQueueUpdate, queueBranchName, queueNudgeSignal, queueViewQuery,
  type QueueEntry, type QueueSettings, type QueueSurvey, type QueueWorkflowInput,
} from './queue-messages.js';
import type { OperationOutcome } from './pull-messages.js';

const HISTORY_EVENT_LIMIT = 2_000;
/** A round runs at least this often while entries wait (a lost nudge costs at most this). */
const POLL_MS = 5_000;
/** An empty queue's run waits this long for a join before it ends. */
const LINGER = '10 seconds';

const records = proxyActivities<QueueActivities>(RECORD_ACTIVITY_OPTIONS);
// Builds and landings run git; landing is made safe to repeat by the merge journal.
const gitWork = proxyActivities<QueueActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});

export async function mergeQueueWorkflow(input: QueueWorkflowInput): Promise<void> {
  const { key } = input;
  const historyLimit = input.historyEventLimit ?? HISTORY_EVENT_LIMIT;
  let entries: QueueEntry[] = input.carried?.entries ?? [];
  let nextBatch = input.carried?.nextBatch ?? 1;
  const failedCommits = new Set(input.carried?.failedCommits ?? []);
  let landed = input.carried?.landed ?? 0;
  let ejected = input.carried?.ejected ?? 0;
  let baseSha = '';
  let nudged = true;
  const mutex = new Mutex();
  const historyTooLong = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= historyLimit;

  const describe = () => {
    upsertSearchAttributes([{ key: queueBranchKey, value: `${key.repoId}/${key.branch}` }, { key: queueLengthKey, value: entries.length }]);
    upsertMemo({
      repoId: key.repoId, branch: key.branch, baseSha, landed, ejected,
      entries: entries.map((e) => `#${e.index} ${e.state}${e.commit ? ` ${e.commit.slice(0, 10)}` : ''}${e.branch ? ` on ${e.branch}` : ''}`),
    });
  };
  const publish = async () => {
    const branches: Record<string, string> = {};
    for (const e of entries) if (e.branch && e.commit) branches[e.branch] = e.commit;
    await records.publishQueue(key, entries, branches);
    describe();
  };
  const eject = async (index: number, reason: string, doerId: number | null = null) => {
    await records.removeFromQueue(key, index, doerId, reason);
    entries = entries.filter((e) => e.index !== index);
    ejected++;
    log.info('entry left the queue', { index, reason });
  };

  // Admission (the readiness check, the row and its comment) runs outside the queue's lock, so a
  // burst of joins is admitted several at a time; the row's unique key refuses a second entry. Each
  // join takes a ticket when the workflow accepts it, and admitted entries enter the queue in ticket
  // order: the queue's order is the order its join updates were accepted (in the workflow's history),
  // not the order their admissions happened to finish.
  let nextTicket = 0;
  let nextToEnter = 0;
  const admitted = new Map<number, QueueEntry | null>();
  const enterInTicketOrder = () => {
    while (admitted.has(nextToEnter)) {
      const entry = admitted.get(nextToEnter)!;
      admitted.delete(nextToEnter++);
      if (entry) {
        entries.push(entry);
        nudged = true;
      }
    }
  };
  setHandler(joinQueueUpdate, async (req): Promise<OperationOutcome> => {
    if (entries.some((e) => e.index === req.index)) return { status: 409, body: { message: 'the pull request is already in the merge queue' } };
    const ticket = nextTicket++;
    let entry: QueueEntry | null = null;
    try {
      // Its position is published by the next round (0 until then).
      const outcome = await records.admitToQueue(key, req, 0);
      if (outcome.status !== 201) return { status: outcome.status, body: outcome.body };
      entry = {
        index: req.index, pullId: outcome.pullId!, doerId: req.doerId, headSha: outcome.headSha!, queuedAt: new Date().toISOString(), state: 'waiting',
        batch: 0, commit: '', builtOn: '', mergeBase: '', branch: '', checksSince: 0, checks: [],
      };
      return { status: 201 };
    } finally {
      admitted.set(ticket, entry);
      enterInTicketOrder();
    }
  });

  setHandler(leaveQueueUpdate, (req) => mutex.runExclusive(async (): Promise<OperationOutcome> => {
    const entry = entries.find((e) => e.index === req.index);
    if (!entry) return { status: 404, body: { message: 'the pull request is not in the merge queue' } };
    if (entry.state === 'landing') return { status: 409, body: { message: 'the pull request is landing' } };
    const allowed = await records.mayLeaveQueue(key, req.index, req.doerId, entry.doerId);
    if (allowed.status !== 204) return allowed;
    await eject(req.index, 'taken out on request', req.doerId);
    nudged = true;
    await publish();
    return { status: 204 };
  }));

  setHandler(queueNudgeSignal, () => {
    nudged = true;
  });
  setHandler(queueViewQuery, () => ({ entries, baseSha, landed, ejected }));

  /** Entries without a batch form batches of up to maxBatch, a short one once its oldest waited long enough. */
  const formBatches = (s: QueueSettings, now: number): number | null => {
    const loose = entries.filter((e) => e.batch === 0);
    let wakeIn: number | null = null;
    while (loose.length > 0) {
      const take = loose.slice(0, s.maxBatch);
      const due = Date.parse(take[0]!.queuedAt) + s.batchWaitSeconds * 1000;
      if (take.length < s.maxBatch && due > now) {
        wakeIn = due - now;
        break;
      }
      const id = nextBatch++;
      for (const e of take) e.batch = id;
      loose.splice(0, take.length);
    }
    return wakeIn;
  };
  /** The batches in queue order, each its entries in order. */
  const batches = (): QueueEntry[][] => {
    const out: QueueEntry[][] = [];
    for (const e of entries) {
      if (e.batch === 0) break;
      const last = out[out.length - 1];
      if (last && last[0]!.batch === e.batch) last.push(e);
      else out.push([e]);
    }
    return out;
  };

  /** The batches CI checks: the first `depth` past those about to land. */
  const window = (s: QueueSettings, landing: QueueEntry[]): QueueEntry[][] => batches().filter((b) => !landing.includes(b[0]!)).slice(0, s.depth);

  /**
   * Builds what the window needs, on the base or, past batches about to land, on their tip; entries
   * git refuses are ejected.
   */
  const build = async (s: QueueSettings, landing: QueueEntry[]): Promise<void> => {
    const active = window(s, landing).flat();
    const start = landing.length > 0 ? landing[landing.length - 1]!.commit : baseSha;
    let prev = start;
    const from = active.findIndex((e) => {
      const stale = !e.commit || e.builtOn !== prev;
      prev = e.commit;
      return stale;
    });
    if (from === -1) return;
    const todo = active.slice(from);
    for (const e of todo) e.state = 'building';
    describe();
    const built = await gitWork.buildSpeculative(key, {
      base: from === 0 ? start : active[from - 1]!.commit, style: s.style, date: `@${Math.floor(Date.now() / 1000)} +0000`,
      entries: todo.map((e) => ({ index: e.index, headSha: e.headSha, doerId: e.doerId })),
    });
    for (const b of built) {
      const e = entries.find((x) => x.index === b.index);
      if (!e) continue;
      if (!b.commit) {
        await eject(e.index, b.conflict ?? 'it cannot be merged on the entries ahead of it');
        continue;
      }
      if (e.commit !== b.commit) {
        e.commit = b.commit;
        e.checksSince = Date.now();
        e.checks = [];
      }
      e.builtOn = b.builtOn;
      e.mergeBase = b.mergeBase;
      e.state = 'pending';
    }
  };

  /** Each landing or checked batch's last entry carries the queue branch; the others none. */
  const nameBranches = (s: QueueSettings, landing: QueueEntry[]) => {
    const active = batches().filter((b) => landing.includes(b[0]!)).concat(window(s, landing));
    const tails = new Set(active.map((b) => b[b.length - 1]!));
    for (const e of entries) {
      e.branch = tails.has(e) && e.commit ? queueBranchName(key.branch, e.index, e.headSha) : '';
      if (!active.some((b) => b.includes(e))) {
        e.state = 'waiting';
        e.commit = '';
        e.builtOn = '';
      }
    }
  };

  /**
   * The batches at the front whose required checks passed on commits built on the base, one after
   * another: they land together (each of their commits was checked green on its own).
   */
  const greenAtFront = (survey: QueueSurvey): QueueEntry[] => {
    const green: QueueEntry[] = [];
    let prev = baseSha;
    for (const batch of batches()) {
      const tail = batch[batch.length - 1]!;
      const verdict = tail.commit ? survey.verdicts[tail.commit] : undefined;
      if (verdict) for (const e of batch) e.checks = verdict.checks;
      const chained = batch.every((e) => {
        const ok = e.commit !== '' && e.builtOn === prev;
        prev = e.commit;
        return ok;
      });
      if (!chained || verdict?.state !== 'success' || failedCommits.has(tail.commit)) break;
      green.push(...batch);
    }
    return green;
  };

  /** Judges the front batch when none lands: splits or ejects it when it failed or timed out. Returns ms to its timeout. */
  const judgeFront = async (s: QueueSettings, survey: QueueSurvey): Promise<number | null> => {
    const front = batches()[0];
    if (!front || front.some((e) => !e.commit)) return null;
    const tail = front[front.length - 1]!;
    const verdict = survey.verdicts[tail.commit];
    const timedOut = Date.now() - tail.checksSince >= s.checkTimeoutSeconds * 1000;
    const failed = failedCommits.has(tail.commit) ? 'its checks failed before' : verdict?.state === 'failure' ? verdict.message : timedOut ? `its required checks did not finish within ${s.checkTimeoutSeconds} s` : null;
    if (!failed) return Math.max(0, tail.checksSince + s.checkTimeoutSeconds * 1000 - Date.now());
    failedCommits.add(tail.commit);
    // Shown failed, with the checks that failed it, before it leaves or is split.
    for (const e of front) e.state = 'failed';
    await publish();
    if (front.length === 1) {
      await eject(tail.index, `the speculative commit ${tail.commit.slice(0, 10)} failed: ${failed}`);
    } else {
      // Bisect: the first half is checked on its own; the second half, built behind it, again after.
      const half = Math.ceil(front.length / 2);
      const first = nextBatch++;
      const second = nextBatch++;
      front.forEach((e, i) => {
        e.batch = i < half ? first : second;
        e.state = 'pending';
      });
      front[half - 1]!.checksSince = Date.now();
      log.info('batch split', { entries: front.map((e) => e.index), reason: failed });
    }
    nudged = true;
    return null;
  };

  /** One compare-and-swap of the base to the last member's commit; then each member marked merged by its own workflow. */
  const land = async (s: QueueSettings, members: QueueEntry[]) => {
    const tip = members[members.length - 1]!.commit;
    log.info('landing', { entries: members.map((e) => e.index), commit: tip });
    const result = await gitWork.landBatch(key, baseSha, members.map((e) => ({ index: e.index, pullId: e.pullId, commit: e.commit, builtOn: e.builtOn, mergeBase: e.mergeBase })));
    nudged = true;
    if (!result.landed) {
      log.info('landing refused', { reason: result.reason });
      for (const e of members) e.state = 'pending';
      return;
    }
    const outcomes = await Promise.all(members.map((e) => gitWork.markLanded(key, tip, { index: e.index, doerId: e.doerId, style: s.style })));
    outcomes.forEach((o, i) => {
      if (o.status !== 200) log.error('landed entry not recorded as merged', { index: members[i]!.index, status: o.status, body: o.body as never });
    });
    log.info('landed', { entries: members.map((e) => e.index), commit: tip });
    baseSha = tip;
    const done = new Set(members);
    entries = entries.filter((e) => !done.has(e));
    landed += members.length;
  };

  /** One round; returns how long to sleep at most before the next. */
  const round = async (): Promise<number> => {
    const checked = batches().map((b) => b[b.length - 1]!).filter((e) => e.commit).map((e) => e.commit);
    const survey = await records.surveyQueue(key, entries.map((e) => ({ index: e.index, headSha: e.headSha })), checked);
    const s = survey.settings;
    for (const r of survey.removals) await eject(r.index, r.reason);
    if (!survey.baseSha || !s.enabled) {
      for (const e of [...entries]) await eject(e.index, !survey.baseSha ? `the branch ${key.branch} is gone` : 'the merge queue was turned off');
      await publish();
      return POLL_MS;
    }
    if (survey.baseSha !== baseSha) log.info('base moved', { from: baseSha, to: survey.baseSha });
    baseSha = survey.baseSha;
    const batchWake = formBatches(s, Date.now());
    // What comes after the green front is built on its tip and published before it lands, so CI
    // checks the next batches while the landing runs (a refused landing rebuilds them next round).
    const landing = greenAtFront(survey);
    for (const e of landing) e.state = 'landing';
    await build(s, landing);
    nameBranches(s, landing);
    let timeout: number | null = null;
    if (landing.length > 0) {
      await publish();
      await land(s, landing);
    } else {
      timeout = await judgeFront(s, survey);
    }
    await publish();
    return Math.min(POLL_MS, batchWake ?? POLL_MS, timeout ?? POLL_MS);
  };

  describe();
  for (;;) {
    if (entries.length === 0) {
      await condition(() => entries.length > 0 || historyTooLong(), LINGER);
      if (entries.length === 0) {
        await condition(allHandlersFinished);
        if (entries.length === 0) return;
      }
    }
    if (historyTooLong()) break;
    nudged = false;
    let sleep = POLL_MS;
    try {
      sleep = await mutex.runExclusive(round);
    } catch (err) {
      const cause = activityFailureCause(err);
      if (!cause) throw err;
      log.error('queue round failed', { error: cause.message });
    }
    if (!nudged) await condition(() => nudged || historyTooLong(), Math.max(sleep, 50));
  }
  await condition(allHandlersFinished);
  await continueAsNew<typeof mergeQueueWorkflow>({
    key, historyEventLimit: input.historyEventLimit, carried: { entries, nextBatch, failedCommits: [...failedCommits].slice(-200), landed, ejected },
  });
}
