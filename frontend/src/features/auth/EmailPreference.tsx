import { toast } from '../../lib/toast';
import { RetryButton } from '../../components/RetryButton';
import { Spinner } from '../../components/Spinner';
import { errorText } from '../../lib/errors';
import { useEmailPreferenceQuery, useSetEmailPreferenceMutation } from './api';

const FAILED = 'Your e-mail preference could not be saved.';

/**
 * The signed-in user's switch for e-mails about their top-ups and orders, showing what is saved.
 * Password-reset e-mails and replies to their messages come either way.
 */
export function EmailPreference() {
  const preference = useEmailPreferenceQuery();
  const [save, { isLoading: saving }] = useSetEmailPreferenceMutation();
  const on = preference.data?.email_notifications;

  const change = async (next: boolean) => {
    const answer = await save(next);
    if ('error' in answer) {
      toast.error(errorText(answer.error, { failed: FAILED, unexpected: FAILED }));
      return;
    }
    toast.success(
      next
        ? 'E-mails about your top-ups and orders are on.'
        : 'E-mails about your top-ups and orders are off.',
    );
  };

  return (
    <section className="profile__emails" aria-labelledby="profile-emails">
      <h2 id="profile-emails">E-mails</h2>
      {on !== undefined ? (
        <>
          <label className="switch">
            <input
              type="checkbox"
              role="switch"
              className="switch__input"
              checked={on}
              disabled={saving}
              onChange={(e) => void change(e.currentTarget.checked)}
            />
            <span className="switch__track" aria-hidden="true" />
            <span>E-mail me when my top-ups and orders are confirmed or rejected</span>
          </label>
          <p
            className={on ? 'profile__emails-state profile__emails-state--on' : 'profile__emails-state'}
            data-testid="email-preference"
          >
            {saving ? 'Saving…' : on ? 'On' : 'Off'}
          </p>
          <p className="profile__emails-note">
            Password-reset e-mails and replies to your messages always come.
          </p>
        </>
      ) : preference.isError ? (
        <p className="note note--error">
          Unable to load your e-mail preference.{' '}
          <RetryButton onRetry={() => void preference.refetch()} what="loading your e-mail preference" />
        </p>
      ) : (
        <Spinner />
      )}
    </section>
  );
}
