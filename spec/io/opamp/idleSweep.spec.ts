import { expect } from 'chai';
import {
  checkEveryMs,
  createIdleSweep,
  judge,
  openedMark,
  type IdleMark,
  type Verdict,
} from '../../../src/io/opamp/idleSweep.ts';
import { VirtualClock } from '../../support/virtualTime.ts';

// Heartbeat interval 1 s, eviction threshold 3 s.
const rule = { idleTimeoutMs: 3000, pingAfterMs: 1000 };

describe('WebSocket liveness decision', () => {
  it('pings a socket holding an agent once it is quiet for an interval, and keeps it while it answers', () => {
    const mark = openedMark(0);
    expect(judge(mark, 999, rule, true)).to.equal('keep');
    expect(judge(mark, 1000, rule, true)).to.equal('ping');
    expect(judge(mark, 1400, rule, true)).to.equal('keep');
    mark.ponged = true;
    expect(judge(mark, 1450, rule, true)).to.equal('keep');
    expect(judge(mark, 2449, rule, true)).to.equal('keep');
    expect(judge(mark, 2450, rule, true)).to.equal('ping');
  });

  it('terminates a socket holding an agent half an interval after an unanswered ping', () => {
    const mark = openedMark(0);
    expect(judge(mark, 1000, rule, true)).to.equal('ping');
    expect(judge(mark, 1499, rule, true)).to.equal('keep');
    expect(judge(mark, 1500, rule, true)).to.equal('terminate');
  });

  it('counts a message like a pong for a socket holding an agent', () => {
    const mark = openedMark(0);
    expect(judge(mark, 1000, rule, true)).to.equal('ping');
    mark.spoke = true;
    expect(judge(mark, 1200, rule, true)).to.equal('keep');
    expect(judge(mark, 2000, rule, true)).to.equal('keep');
    expect(judge(mark, 2200, rule, true)).to.equal('ping');
  });

  it('closes a socket holding no agent after the idle timeout without a message, pongs or not', () => {
    const mark = openedMark(0);
    mark.ponged = true;
    expect(judge(mark, 2000, rule, false)).to.equal('keep');
    mark.ponged = true;
    expect(judge(mark, 3000, rule, false)).to.equal('keep');
    expect(judge(mark, 3001, rule, false)).to.equal('close_idle');
  });

  it('never pings without a ping interval: the idle rule alone', () => {
    const mark = openedMark(0);
    const noPings = { idleTimeoutMs: 3000, pingAfterMs: undefined };
    expect(judge(mark, 2000, noPings, true)).to.equal('keep');
    expect(judge(mark, 3001, noPings, true)).to.equal('close_idle');
  });

  it('checks at a tenth of the shortest wait, at most every second', () => {
    expect(checkEveryMs(rule)).to.equal(50);
    expect(checkEveryMs({ idleTimeoutMs: 90_000, pingAfterMs: 30_000 })).to.equal(1000);
    expect(checkEveryMs({ idleTimeoutMs: 3000, pingAfterMs: undefined })).to.equal(300);
  });
});

describe('WebSocket liveness sweep (virtual time)', () => {
  function world(holds: () => boolean) {
    const clock = new VirtualClock(0);
    const sockets = new Set<IdleMark>();
    const acts: [number, Verdict][] = [];
    const sweep = createIdleSweep(clock.scheduler, rule, {
      sockets,
      markOf: (m) => m,
      holdsAgent: holds,
      isOpen: (m) => sockets.has(m),
      act: (m, verdict) => {
        acts.push([clock.now(), verdict]);
        if (verdict !== 'ping') {
          sockets.delete(m);
          sweep.closed();
        }
      },
    });
    const mark = openedMark(0);
    sockets.add(mark);
    sweep.opened();
    return { clock, mark, acts };
  }

  it('keeps a quiet agent that answers every ping for five intervals, then cuts it within one after it stops', () => {
    const w = world(() => true);
    for (let i = 0; i < 5 * 20; i++) {
      w.clock.advance(50);
      if (w.acts.at(-1)?.[1] === 'ping' && w.mark.pingedAt !== undefined) w.mark.ponged = true;
    }
    expect(w.acts.filter(([, v]) => v === 'ping').length).to.be.at.least(4);
    expect(w.acts.every(([, v]) => v === 'ping')).to.equal(true);
    const lastAnswer = w.clock.now();
    w.clock.advance(3000);
    const [pingAt, ping] = w.acts.at(-2)!;
    const [cutAt, cut] = w.acts.at(-1)!;
    expect([ping, cut]).to.deep.equal(['ping', 'terminate']);
    expect(pingAt).to.be.at.most(lastAnswer + 1000 + 50);
    expect(cutAt - pingAt).to.be.at.most(1000);
  });

  it('closes a socket holding no agent as idle, never pinging it', () => {
    const w = world(() => false);
    w.clock.advance(5000);
    expect(w.acts).to.deep.equal([[3050, 'close_idle']]);
  });
});
