import type { ContentProps } from "../../core/site.js";

export function AboutContent({ site }: ContentProps) {
  return (
    <>
      <h1>About this platform</h1>
      <p>
        The {site.villageName} community platform helps residents report local problems, share ideas and work together
        on projects for the village.
      </p>

      <h2>Who runs it</h2>
      <p>
        A small group of volunteers who live in or near {site.villageName} run this platform. We give our time for free.
        Nobody is paid to run it, and nobody makes a profit from it.
      </p>

      <h2>We are not the council</h2>
      <p>
        This is an independent community project. It is not part of {site.councilName}, and we do not speak for the
        council.
      </p>
      <p>
        When you report a problem, we may forward it to the right department at {site.councilName} or to another body
        that is responsible for it. We only share your contact details with them if you agree. How quickly a problem is
        fixed depends on the council or that body, not on us. We cannot promise a response time on their behalf; the{" "}
        <a href="/stats#how-long">report statistics</a> show how long reports have taken, by category and department.
      </p>

      <h2>What it is for</h2>
      <p>
        This platform is for <strong>non-urgent</strong> local issues. Examples include potholes, broken street lights,
        blocked drains, overgrown paths, fly-tipping and graffiti.
      </p>
      <p>It is not for emergencies, because nobody watches it around the clock.</p>
      <ul>
        <li>
          If someone is in danger, call <strong>999</strong> (or <strong>112</strong>).
        </li>
        <li>For an urgent danger on the road, call your council's emergency line.</li>
        <li>
          If you smell gas, call the National Gas emergency line on <a href="tel:0800111999">0800 111 999</a>.
        </li>
        <li>
          For a power cut, call <a href="tel:105">105</a>.
        </li>
      </ul>

      <h2>How it is run and paid for</h2>
      <p>
        We keep our costs low, and volunteers cover what is left. There are no adverts on this site. We do not track
        you, we do not use tracking cookies and we never sell your data. You can read the details in our{" "}
        <a href="/privacy">privacy notice</a>.
      </p>

      <h2>Open data and APIs</h2>
      <p>
        We believe information about the village should be easy to reuse. Reports are available through an open{" "}
        <abbr title="Application Programming Interface">API</abbr>, and our list of local businesses is published as
        open data.
      </p>
      <ul>
        <li>
          <a href="/developers">Information for developers about our APIs and open data</a>
        </li>
        <li>
          <a href="/data/businesses-canonical.json">
            Download the local businesses dataset (<abbr title="JavaScript Object Notation">JSON</abbr>)
          </a>
        </li>
      </ul>
      <p>
        Our <a href="/terms">terms of use</a> explain the licences that apply.
      </p>

      <h2>Open source</h2>
      <p>
        The software behind this platform is open source. It is published under the GNU Affero General Public License,
        version 3 or later. Anyone can read the code, suggest improvements or run their own copy for their own
        community. Our <a href="/developers">developer pages</a> have more details.
      </p>

      <h2>Contact us</h2>
      <p>
        You can email the volunteers at <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>. We are
        volunteers, so please allow a few days for a reply.
      </p>
      <p>
        To tell us about a problem with how this site works for you, see our{" "}
        <a href="/accessibility">accessibility statement</a>.
      </p>
    </>
  );
}
