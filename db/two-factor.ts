// Store for the TOTP columns of an account: the replay guard and the pending enrolment.
import type { Knex } from 'knex';
import { nowUnix } from './time.js';
import { markAccountsChanged } from './users.js';

export function twoFactorStore(db: Knex) {
  return {
    /**
     * Compare-and-set of the last accepted time step: true only for the one request that moves it
     * forward, so a code can be used once even by two concurrent requests.
     */
    async claimStep(userId: number, step: number): Promise<boolean> {
      const changed = await db('users').where('id', userId).andWhere('totp_last_step', '<', step).update({ totp_last_step: step });
      return changed > 0;
    },
    async pendingSecret(userId: number): Promise<string | null> {
      const row = await db('users').where({ id: userId }).first('totp_pending_secret');
      return (row?.totp_pending_secret as string | null | undefined) ?? null;
    },
    async setPending(userId: number, sealed: string | null): Promise<void> {
      await db('users').where({ id: userId }).update({ totp_pending_secret: sealed, updated_unix: nowUnix() });
      markAccountsChanged();
    },
    /**
     * Turns the pending secret into the active one, only if it is still the one the caller
     * verified (a concurrent re-enrolment wins otherwise). `step` is the confirmed code's step,
     * so that code cannot be replayed for a login.
     */
    async activatePending(userId: number, sealedPending: string, step: number): Promise<boolean> {
      const changed = await db('users').where({ id: userId, totp_pending_secret: sealedPending })
        .update({ totp_secret: sealedPending, totp_pending_secret: null, totp_last_step: step, updated_unix: nowUnix() });
      markAccountsChanged();
      return changed > 0;
    },
    async disable(userId: number): Promise<void> {
      await db('users').where({ id: userId }).update({ totp_secret: null, totp_pending_secret: null, totp_last_step: 0, updated_unix: nowUnix() });
      markAccountsChanged();
    },
  };
}
