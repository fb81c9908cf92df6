import { uniqueName, waitForEmail } from '@raseed/kit/testing';
import { startTestAuth, type TestAuth } from './support';

let auth: TestAuth;
beforeAll(async () => {
  auth = await startTestAuth();
});
afterAll(() => auth.stop());

describe('the Contact Us form', () => {
  it('stores the message and e-mails it to the admins, replying to the sender', async () => {
    const sender = `${uniqueName('visitor')}@example.com`;
    const subject = `Card not delivered ${uniqueName('')}`;
    const res = await auth
      .http()
      .post('/api/contact')
      .send({ email: sender, phone: '+961 70 000000', subject, message: 'Order 42 <b>never</b> arrived.' })
      .expect(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Your message has been sent. We will get back to you soon.',
    });
    expect(await auth.db.collection('contact_messages').findOne({ subject })).toMatchObject({
      email: sender,
      phone: '+961 70 000000',
      message: 'Order 42 <b>never</b> arrived.',
    });
    const [mail] = await waitForEmail(auth.adminEmail);
    expect(mail!.subject).toBe(`Contact: ${subject}`);
    expect(mail!.replyTo?.map((r) => r.address)).toEqual([sender]);
    expect(mail!.text).toContain(`From ${sender} (+961 70 000000):`);
    expect(mail!.text).toContain('Order 42 <b>never</b> arrived.');
  });

  it('refuses a message without an e-mail, subject or message, storing nothing', async () => {
    const cases: [object, string][] = [
      [{ subject: 'Hi', message: 'Hello' }, 'Please enter a valid email address'],
      [{ email: 'not-an-address', subject: 'Hi', message: 'Hello' }, 'Please enter a valid email address'],
      [{ email: 'a@b.co', subject: '   ', message: 'Hello' }, 'Email, subject and message are required.'],
      [{ email: 'a@b.co', subject: 'Hi' }, 'Email, subject and message are required.'],
      [
        { email: 'a@b.co', subject: 'Hi', message: 'x'.repeat(5001) },
        'Message must be at most 5000 characters',
      ],
    ];
    const before = await auth.db.collection('contact_messages').countDocuments();
    for (const [body, error] of cases) {
      const res = await auth.http().post('/api/contact').send(body).expect(400);
      expect(res.body).toEqual({ success: false, error });
    }
    expect(await auth.db.collection('contact_messages').countDocuments()).toBe(before);
  });
});
