import type { ContentProps } from "../../core/site.js";

export function AccessibilityContent({ site }: ContentProps) {
  const mail = <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>;
  return (
    <>
      <h1>Accessibility statement</h1>
      <p>
        This statement applies to the {site.villageName} community platform at {site.baseUrl}. It is run by a group of
        volunteers. We want as many people as possible to be able to use it, whatever their age, ability or device.
      </p>
      <p>We aim to meet the Web Content Accessibility Guidelines (WCAG) version 2.1 at level AA.</p>

      <h2>What you should be able to do</h2>
      <p>You should be able to:</p>
      <ul>
        <li>zoom in up to 400% without text spilling off the screen;</li>
        <li>move around the whole site using just a keyboard;</li>
        <li>use the site with a screen reader;</li>
        <li>use the site without JavaScript, including reporting a problem;</li>
        <li>give a location without using the map, by choosing a street or landmark, or by typing a description.</li>
      </ul>
      <p>
        You can change colours, contrast levels and fonts using your browser or device settings. The{" "}
        <a href="https://mcmw.abilitynet.org.uk/">AbilityNet guide My Computer My Way</a> has advice on making your
        device easier to use.
      </p>

      <h2>How accessible this website is</h2>
      <p>We know some parts of this website are not fully accessible:</p>
      <ul>
        <li>
          The map is harder to use with a screen reader. You can always give a location another way instead, by choosing
          a street or landmark or by typing a description.
        </li>
        <li>
          Photos uploaded by residents may not have text descriptions. The written description of each report should
          still tell you what the problem is.
        </li>
        <li>
          The map images, called tiles, come from a separate map tile server. We cannot control how they look, and they
          have no text alternative. Report locations are also given as text.
        </li>
      </ul>

      <h2>Feedback and contact information</h2>
      <p>
        If you find a problem that we have not listed here, or you need information from this site in a different
        format, please email us at {mail}.
      </p>
      <p>
        Please tell us the address of the page and what went wrong. We are volunteers, but we aim to reply within 5
        working days.
      </p>

      <h2>Enforcement procedure</h2>
      <p>
        The Equality and Human Rights Commission (EHRC) is responsible for enforcing equality and accessibility law in
        Great Britain. If you are not happy with how we respond to your complaint, contact the{" "}
        <a href="https://www.equalityadvisoryservice.com/">Equality Advisory and Support Service (EASS)</a>.
      </p>

      <h2>Technical information about this website's accessibility</h2>
      <h3>Compliance status</h3>
      <p>
        This website is partially compliant with the{" "}
        <a href="https://www.w3.org/TR/WCAG21/">Web Content Accessibility Guidelines version 2.1</a> AA standard,
        because of the issues listed under "How accessible this website is".
      </p>

      <h3>How we test this website</h3>
      <ul>
        <li>
          Every time we change the site, automated checks using the axe-core tool test every page in a real web browser.
        </li>
        <li>We also check by hand that every page can be used with a keyboard alone.</li>
      </ul>

      <h2>What we are doing to improve accessibility</h2>
      <p>
        We fix accessibility problems as soon as we can after we find them or you tell us about them. We will update
        this statement when we do.
      </p>

      <h2>Preparation of this accessibility statement</h2>
      <p>This statement was prepared on 22 November 2026.</p>
    </>
  );
}
