/**
 * The accounts feature's public entry: what other features may use of it (the dependency rules in
 * .dependency-cruiser.cjs let them import this file and no other of the folder).
 */
export { keepAnAdmin } from "./admins.js";
export { personalDataSources, subjectAddresses } from "./personal-data.js";
export { sourceContext } from "./account-service.js";
export type { DataSubject } from "./personal-data.js";
export { accountAddress, reporterDefaults } from "./prefill.js";
export { findAccountByEmail, isRole, setRole } from "./repository.js";
export { endAllSessions } from "./sessions.js";
