import { resetPasswordEmail, unsealed } from '../src/jobs/email';

const KEY = 'a-test-secret-of-at-least-32-characters';
const LINK = 'http://localhost:8080/reset-password/Abc123-the-token_of-the-link';

describe('the password-reset e-mail', () => {
  it('keeps its link out of the job data (Redis, the queue board), and the worker puts it back', () => {
    const queued = resetPasswordEmail('sam@example.com', 'Sam <b>', LINK, KEY);
    expect(JSON.stringify(queued)).not.toContain('Abc123-the-token_of-the-link');
    const sent = unsealed(queued, KEY);
    expect(sent.text).toContain(`choose a new password:\n${LINK}\n`);
    expect(sent.html).toContain(`<a href="${LINK}">${LINK}</a>`);
    expect(sent.html).toContain('Sam &#60;b&#62;');
    expect(sent).not.toHaveProperty('sealed');
  });

  it('cannot be opened with another key, nor after tampering', () => {
    const queued = resetPasswordEmail('sam@example.com', 'Sam', LINK, KEY);
    expect(() => unsealed(queued, `${KEY}-other`)).toThrow();
    const [iv, tag, body] = queued.sealed!.split('.');
    const flipped = `${iv}.${tag}.${body!.startsWith('A') ? 'B' : 'A'}${body!.slice(1)}`;
    expect(() => unsealed({ ...queued, sealed: flipped }, KEY)).toThrow();
  });
});

describe('a reset e-mail queued before JWT_SECRET was rotated', () => {
  it('is opened with the previous key while it is configured', () => {
    const queued = resetPasswordEmail('sam@example.com', 'Sam', LINK, KEY);
    const rotated = ['the-new-secret-of-at-least-32-characters', KEY];
    expect(unsealed(queued, rotated).text).toContain(LINK);
    expect(() => unsealed(queued, rotated.slice(0, 1))).toThrow();
  });
});
