import type { ContentProps } from "../../core/site.js";
import type { ComponentChildren } from "preact";

interface Card {
  href: string;
  title: string;
  text: string;
}

const cards: Card[] = [
  {
    href: "/report",
    title: "Report an issue",
    text: "Tell us about a pothole, a broken street light, fly-tipping or another local problem.",
  },
  {
    href: "/reports",
    title: "See reports",
    text: "Look at problems other residents have reported, and get the updates on one by email.",
  },
  {
    href: "/status",
    title: "Check a report's status",
    text: "Use your report reference to see what has happened to it so far.",
  },
  {
    href: "/ideas",
    title: "Share an idea",
    text: "Suggest something that would make the village a better place to live.",
  },
  {
    href: "/projects",
    title: "Community projects",
    text: "Find out what residents are working on together, and how you can help.",
  },
  {
    href: "/volunteer",
    title: "Volunteer",
    text: "Offer a little of your time, whether that is an hour once or a regular role.",
  },
  {
    href: "/newsletter",
    title: "Newsletter",
    text: "Sign up for occasional news about the village by email.",
  },
  {
    href: "/businesses",
    title: "Local businesses",
    text: "Find shops, services and trades in and around the village.",
  },
  {
    href: "/councillors",
    title: "Your councillors",
    text: "Find out who represents you and how to get in touch with them.",
  },
];

export interface HomeProps extends ContentProps {
  /** The features' blocks before the cards and after them (their manifests' `home`, core/web/blocks.ts). */
  lead: ComponentChildren;
  main: ComponentChildren;
}

export function HomeContent({ site, lead, main }: HomeProps) {
  return (
    <>
      <h1>Welcome to the {site.villageName} community platform</h1>
      <p>
        This is a place for everyone who lives or works in {site.villageName}. You can report problems in the village,
        see what others have reported and follow what happens next. You can also share ideas, join in with local
        projects and find local businesses.
      </p>
      <p>You do not need an account to report a problem or to look around.</p>

      {lead}

      <ul class="cards">
        {cards.map((card) => (
          <li class="card" key={card.href}>
            <h2>
              <a href={card.href}>{card.title}</a>
            </h2>
            <p>{card.text}</p>
          </li>
        ))}
      </ul>

      {main}

      <aside class="notice notice-warning" aria-labelledby="emergencies-heading">
        <h2 id="emergencies-heading">Not for emergencies</h2>
        <p>
          Reports here are not watched around the clock. If someone is in danger, call <strong>999</strong> (or{" "}
          <strong>112</strong>) now.
        </p>
        <ul>
          <li>For an urgent danger on the road, such as a fallen tree, call your council's emergency line.</li>
          <li>
            If you smell gas, call the National Gas emergency line on <a href="tel:0800111999">0800 111 999</a>.
          </li>
          <li>
            For a power cut, call <a href="tel:105">105</a>.
          </li>
        </ul>
      </aside>

      <p>
        This is an independent community project run by volunteers. It is not a website of {site.councilName}.{" "}
        <a href="/about">Read more about who runs this platform</a>.
      </p>
    </>
  );
}
