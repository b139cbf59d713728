import type { HomeBlock, NotFoundBlock } from "../core/web/blocks.js";
import { LatestReports } from "./pages/latest.js";
import { PlaceBox } from "./pages/list.js";
import { placeNames } from "./places.js";
import { latestPublicReports } from "./repository.js";

/** How many of the newest public reports the home page shows. */
const LATEST_REPORTS = 5;

/** The home page's "Find reports by street, place or words" box, with the gazetteer's names as suggestions. */
export const placeSearchBlock: HomeBlock = {
  placement: "lead",
  order: 10,
  async render(db) {
    const places = await placeNames(db);
    return (
      <section aria-labelledby="near-heading">
        <h2 id="near-heading">Find reports by street, place or words</h2>
        <form method="get" action="/reports" class="place-search">
          <PlaceBox id="place-search" names={places} />
          <button type="submit">Find reports</button>
        </form>
      </section>
    );
  },
};

/** The home page's newest public reports. */
export const latestReportsBlock: HomeBlock = {
  placement: "main",
  order: 10,
  async render(db) {
    const latest = await latestPublicReports(db, LATEST_REPORTS);
    return (
      <section aria-labelledby="latest-heading">
        <h2 id="latest-heading">Latest reports</h2>
        <LatestReports items={latest} headingId="latest-heading" />
        <p>
          <a href="/reports">See every report</a>
        </p>
      </section>
    );
  },
};

/** The 404 page's way to the reports: browse or search them (a plain box, no names: a 404 reads nothing), or look one up. */
export const reportsOnNotFound: NotFoundBlock = {
  order: 10,
  render: () => (
    <>
      <li>
        <a href="/reports">Browse reports</a>, or find them by a street, a place or words:
        <form method="get" action="/reports" class="place-search">
          <PlaceBox id="place-search" names={[]} />
          <button type="submit">Find reports</button>
        </form>
      </li>
      <li>
        <a href="/status">Check a report's status using its reference</a>
      </li>
    </>
  ),
};
