import { expect } from 'chai';
import { hashText } from '../../src/core/hash.js';
import { CallState, FingerprintSet, SignatureTable, type SignatureRecord } from '../../src/core/run-ledger.js';

/** The packed tables must answer exactly as the Map / Set they stand for (issue 20: packed call records). */
describe('run ledger packed tables', () => {
  const fields = (index: number, callId?: string): SignatureRecord => ({
    state: (index % 4) as SignatureRecord['state'],
    callId,
    round: index * 3,
    epoch: index * 7,
    retries: index % 5,
    firstTime: 1_764_000_000_000 + index * 1.5,
    lastTime: 1_764_000_000_000 + index * 2.25,
    inFlight: index % 3,
    outcomeTag: (index * 2654435761) >>> 0,
    confirmations: index % 6,
    inProgress: index % 7 === 0,
    answeredError: index % 11 === 0,
    changeSerial: (index * 40503) >>> 0,
  });

  it('SignatureTable keeps every field of every record through its growth, like a Map', () => {
    const table = new SignatureTable();
    const reference = new Map<string, SignatureRecord>();
    for (let index = 0; index < 2000; index++) {
      // Mostly canonical identities; some are not (kept aside in a Map) and one is all zeros.
      const key = index % 97 === 0 ? `empty:tool-${index}` : index === 5 ? 'AAAAAAAAAAAAAAAAAAAAAA' : hashText(`call ${index}`);
      const record = fields(index, index % 3 === 0 ? `call_${index}` : undefined);
      table.add(key, record);
      reference.set(key, { ...record });
      // A record is live: writes through it land in the table.
      if (index % 10 === 0) {
        const live = table.get(key)!;
        live.retries += 1;
        // Retries and inFlight share a word: writing one must leave the other as it was.
        live.inFlight += 2;
        live.changeSerial = 0xfffffffe - index;
        live.lastTime = 2e12 + index;
        live.callId = `later_${index}`;
        // State, confirmations, inProgress and answeredError share a word: each written alone keeps the others.
        live.inProgress = !live.inProgress;
        live.answeredError = !live.answeredError;
        live.confirmations = 0x0fffffff;
        live.state = CallState.FailedTransient;
        const expected = reference.get(key)!;
        expected.inProgress = !expected.inProgress;
        expected.answeredError = !expected.answeredError;
        expected.confirmations = 0x0fffffff;
        expected.state = CallState.FailedTransient;
        expected.retries += 1;
        expected.inFlight += 2;
        expected.changeSerial = 0xfffffffe - index;
        expected.lastTime = 2e12 + index;
        expected.callId = `later_${index}`;
      }
    }
    expect(table.size).to.equal(reference.size);
    for (const [key, expected] of reference) {
      const record = table.get(key)!;
      expect(record, key).to.not.equal(undefined);
      const actual: SignatureRecord = {
        state: record.state,
        callId: record.callId,
        round: record.round,
        epoch: record.epoch,
        retries: record.retries,
        firstTime: record.firstTime,
        lastTime: record.lastTime,
        inFlight: record.inFlight,
        outcomeTag: record.outcomeTag,
        inProgress: record.inProgress,
        answeredError: record.answeredError,
        confirmations: record.confirmations,
        changeSerial: record.changeSerial,
      };
      expect(actual, key).to.deep.equal(expected);
    }
    expect(table.get(hashText('never added'))).to.equal(undefined);
    expect(table.get('not-an-identity')).to.equal(undefined);
  });

  it('SignatureTable: retries and inFlight saturate at 65,535 without spilling into each other', () => {
    const table = new SignatureTable();
    const record = table.add(hashText('saturating'), fields(1));
    record.retries = 70_000;
    record.inFlight = 3;
    expect([record.retries, record.inFlight]).to.deep.equal([65_535, 3]);
    record.inFlight = 1e9;
    record.retries = 2;
    expect([record.retries, record.inFlight]).to.deep.equal([2, 65_535]);
  });

  it('SignatureTable: a call id set after records without one, and one taken back', () => {
    const table = new SignatureTable();
    for (let index = 0; index < 10; index++) table.add(hashText(`c${index}`), fields(index));
    expect(table.get(hashText('c4'))!.callId).to.equal(undefined);
    table.get(hashText('c7'))!.callId = 'call_7';
    table.add(hashText('c10'), { ...fields(10), callId: 'call_10', state: CallState.InFlight });
    expect(table.get(hashText('c7'))!.callId).to.equal('call_7');
    expect(table.get(hashText('c10'))!.callId).to.equal('call_10');
    expect(table.get(hashText('c9'))!.callId).to.equal(undefined);
    table.get(hashText('c7'))!.callId = undefined;
    expect(table.get(hashText('c7'))!.callId).to.equal(undefined);
  });

  it('SignatureTable: call ids of every shape come back exactly (packed base64url, replaced in place or not, other text as strings)', () => {
    const table = new SignatureTable();
    const ids = new Map<string, string>();
    const shapes = (index: number): string => {
      switch (index % 7) {
        case 0: return `call_${index.toString(36).padStart(24, '0')}`; // OpenAI
        case 1: return `toolu_01${'A'.repeat(index % 30)}xyz-${index}`; // Anthropic-like, varying length
        case 2: return `call:${index}`; // not base64url
        case 3: return `ид-${index}`; // not Latin-1
        case 4: return 'x'.repeat(300 + index); // longer than a packed id may be
        case 5: return '';
        default: return `${index}`;
      }
    };
    for (let index = 0; index < 700; index++) {
      const key = hashText(`id ${index}`);
      table.add(key, fields(index, shapes(index)));
      ids.set(key, shapes(index));
      // Repeats: the same call made again with its next id, of the same or another length.
      if (index % 5 === 0) {
        const again = shapes(index + 7);
        table.get(key)!.callId = again;
        ids.set(key, again);
      }
    }
    for (const [key, id] of ids) expect(table.get(key)!.callId, key).to.equal(id);
  });

  it('FingerprintSet answers as a Set<string>', () => {
    const set = new FingerprintSet();
    const reference = new Set<string>();
    for (let index = 0; index < 3000; index++) {
      const value = index % 50 === 0 ? `empty:${index}` : hashText(`r${index % 2500}`);
      set.add(value);
      reference.add(value);
    }
    expect(set.size).to.equal(reference.size);
    for (const value of reference) expect(set.has(value)).to.equal(true);
    expect(set.has(hashText('absent'))).to.equal(false);
  });
});
