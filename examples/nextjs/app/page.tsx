import Link from 'next/link';

export default function Home() {
  return (
    <main>
      <h1>Kente &amp; Co.</h1>
      <ul>
        <li>
          <Link href="/element">Pay with the element</Link>
        </li>
        <li>
          <Link href="/react">Pay with the React component</Link>
        </li>
      </ul>
    </main>
  );
}
