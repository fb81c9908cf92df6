import { useTitle } from '../../lib/useTitle';

const PHONES = ['+961 70 123 456', '+961 71 234 567', '+961 76 345 678'];

export function AboutPage() {
  useTitle('About Us');
  return (
    <section className="prose">
      <h1>About Us</h1>
      <p>
        Raseed is your wallet for digital gift cards and top-ups. Add credit once, then buy game top-ups, app
        credit, gift cards, phone packages, numbers and social-media services in a few clicks, paid straight
        from your balance.
      </p>
      <p>
        Gift cards make the easiest presents: Steam, iTunes, PlayStation and Xbox cards arrive as codes you
        can use at once or pass on to someone else. Game and app top-ups go straight to the player&apos;s
        account, and our team follows every order until it is delivered.
      </p>
      <h2>Contact</h2>
      <address>
        <p>Head office: Beirut, Lebanon</p>
        <ul>
          {PHONES.map((phone) => (
            <li key={phone}>
              <a href={`tel:${phone.replace(/\s/g, '')}`}>{phone}</a>
            </li>
          ))}
        </ul>
        <p>
          Website: <a href={window.location.origin}>{window.location.host}</a>
        </p>
      </address>
    </section>
  );
}
