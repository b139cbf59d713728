import type { ContentProps } from "../../core/site.js";

export function TermsContent({ site }: ContentProps) {
  const mail = <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>;
  return (
    <>
      <h1>Terms of use</h1>
      <p>
        <strong>Last updated: 22 November 2026</strong>
      </p>
      <p>
        These terms explain how you may use the {site.villageName} community platform at {site.baseUrl}. By using the
        platform, you agree to them. We have tried to keep them short and clear. If anything is unclear, please ask us.
      </p>

      <h2>Who we are</h2>
      <p>
        The platform is run by a group of volunteers in {site.villageName}. In these terms, "we" and "us" mean that
        group. We are an independent community project. We are not part of {site.councilName}.
      </p>

      <h2>Using the platform</h2>
      <p>
        You can use the platform to report <strong>non-urgent</strong> local problems, share ideas, join community
        projects and find local information.
      </p>
      <p>
        Do not use it for emergencies. Nobody watches it around the clock. If someone is in danger, call{" "}
        <strong>999</strong> (or <strong>112</strong>). For an urgent danger on the road, call your council's emergency
        line. If you smell gas, call the National Gas emergency line on <a href="tel:0800111999">0800 111 999</a>. For a
        power cut, call <a href="tel:105">105</a>.
      </p>

      <h2>Your content</h2>
      <p>"Your content" means anything you send us, such as reports, ideas, comments and photos.</p>
      <p>
        <strong>You keep ownership of your content.</strong> When you send it to us, you give us a non-exclusive,
        royalty-free licence to:
      </p>
      <ul>
        <li>show it publicly on this platform and through our open data and APIs; and</li>
        <li>
          forward it to {site.councilName} and other bodies responsible for the problem, for civic purposes such as
          getting the problem fixed.
        </li>
      </ul>
      <p>
        "Non-exclusive" means you are still free to use your content in any other way you like. "Royalty-free" means
        neither side pays the other for it.
      </p>
      <p>You must only send content that you have the right to share, for example photos you took yourself.</p>

      <h2>What is public and what is not</h2>
      <p>When you make a report, these parts of it are public:</p>
      <ul>
        <li>the title</li>
        <li>the description</li>
        <li>the category</li>
        <li>the location</li>
        <li>any photos you add</li>
      </ul>
      <p>
        <strong>Your name and your email address are never published.</strong> We only share them with the council if
        you agree. Our <a href="/privacy">privacy notice</a> explains how we look after your personal data.
      </p>
      <p>
        Please do not put personal details, such as your phone number or address, in the title or description. Those
        parts are public.
      </p>

      <h2>Content rules</h2>
      <p>Please help keep the platform useful and friendly. Do not post:</p>
      <ul>
        <li>false or deliberately misleading reports;</li>
        <li>abusive, threatening or discriminatory language;</li>
        <li>spam or advertising;</li>
        <li>personal information about other people, such as their names, addresses or phone numbers;</li>
        <li>photos in which people can be identified, or vehicle number plates can be read, where you can avoid it;</li>
        <li>anything that infringes someone else's copyright.</li>
      </ul>

      <h2>Moderation</h2>
      <p>Volunteers check what is posted. Content that breaks these rules may be hidden or removed.</p>
      <p>If we hide or remove your content and we have a way to reach you, we will tell you what we did and why.</p>
      <h3>Asking for a review</h3>
      <p>
        If you think we got it wrong, email us at {mail}. Tell us which content it was, for example the report
        reference, and why you think it should be restored. We will look at it again and tell you what we decide.
      </p>

      <h2>Suspension</h2>
      <p>
        We may suspend accounts that repeatedly break these terms. Usually, this means we have already warned you, and
        we have upheld three breaches within twelve months.
      </p>
      <p>
        For serious abuse, such as threats, harassment or hate speech, we may suspend an account at once, without a
        warning first.
      </p>
      <p>If your account is suspended, you can ask for a review in the same way as above.</p>

      <h2>The API and open data</h2>
      <p>
        We publish some information as open data so that others can reuse it. You can find out how on our{" "}
        <a href="/developers">developer pages</a>.
      </p>
      <ul>
        <li>
          The local businesses dataset is licensed under the{" "}
          <a href="https://opendatacommons.org/licenses/odbl/1-0/">
            Open Data Commons Open Database License (<abbr title="Open Database License">ODbL</abbr>) 1.0
          </a>
          . You may reuse it if you credit us and share any changes under the same licence.
        </li>
        <li>
          Report content is available through our{" "}
          <abbr title="an open standard for civic issue reporting">Open311</abbr> API. It is provided under the same
          licence that you give us to display it, described under "Your content" above. Names and email addresses are
          never included.
        </li>
      </ul>
      <p>Please use the API fairly. We may limit or block access that puts too much load on the platform.</p>

      <h2>No warranty</h2>
      <p>
        We are volunteers and we provide the platform "as is". We do our best to keep it working and accurate, but we
        cannot promise that it will always be available or free of mistakes.
      </p>
      <p>
        We are not responsible for how quickly {site.councilName} or any other body deals with a problem. Information
        from residents, businesses and councillors is theirs, and we cannot check all of it. Nothing in these terms
        limits any rights you have by law.
      </p>

      <h2>Changes to these terms</h2>
      <p>
        We may update these terms from time to time. When we do, we will change the "Last updated" date at the top of
        this page.
      </p>

      <h2>Contact us</h2>
      <p>If you have a question about these terms, email us at {mail}.</p>
    </>
  );
}
