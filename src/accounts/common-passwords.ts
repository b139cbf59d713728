/**
 * Common passwords of 10 or more characters (shorter ones are refused by length anyway), from the most-used lists
 * of breached passwords, lower-case. A password is refused when it, lower-cased, is in this list.
 */
export const COMMON_PASSWORDS: readonly string[] = `
1234567890 0123456789 0987654321 1234567890a 12345678910 123456789a 123456789q 1q2w3e4r5t 1q2w3e4r5t6y
1qaz2wsx3edc 1qazxsw23edc 2wsx3edc4rfv qwertyuiop qwertyuiop1 qwerty1234 qwerty12345 qwerty123456 asdfghjkl1
asdfghjkl; zxcvbnm123 zxcvbnm1234 qazwsxedcrfv qazwsxedc123 password12 password123 password1234 password12345
password123456 password01 password99 password2020 password2021 password2022 password2023 password2024
password2025 password2026 passw0rd123 p@ssw0rd123 p@ssword123 passwordpassword iloveyou12 iloveyou123
iloveyou1234 iloveyou2 1111111111 2222222222 3333333333 4444444444 5555555555 6666666666 7777777777 8888888888
9999999999 0000000000 1212121212 1122334455 1234512345 1234554321 9876543210 abcdefghij abcdefghijk abc1234567
abcd123456 a123456789 aa12345678 aaaaaaaaaa football123 football12 baseball123 basketball basketball1
liverpool1 liverpool123 manchester chelsea123 arsenal123 sunshine12 sunshine123 princess12 princess123
starwars12 starwars123 letmein123 welcome123 welcome1234 welcome2024 welcome2025 welcometo1 changeme123
trustno1234 whatever123 superman12 superman123 batman1234 pokemon123 computer12 computer123 internet12
internet123 monkey1234 dragon1234 shadow1234 master1234 michael123 jennifer12 jessica123 charlie123
administrator admin12345 admin123456 adminadmin administrator1 rootroot12 testtest12 test123456 test1234567
qwerty123! password1! password123! p@ssw0rd! passw0rd12 iloveyou!! 123456789! 1234567890! q1w2e3r4t5 q1w2e3r4t5y6
a1b2c3d4e5 zaq12wsxcde 1qaz2wsx3e 123qweasdzxc qweasdzxc1 qweasdzxc123 mypassword mypassword1 mypassword123
secret1234 secretpassword letmeinnow loveyou1234 summer2024 summer2025 winter2024 winter2025 spring2025
autumn2025 christmas1 christmas123 blink182182 11111111111 123123123123 123321123321 147258369a 1472583690
159357159357 7418529630 3692581470 asdf123456 asdfasdfasdf asdfghjkl123 zxcvbnmasdf qwertyqwerty passpass12
community1 community123 councillor village123 villagepassword
`
  .split(/\s+/)
  .filter((p) => p.length > 0);

const COMMON = new Set(COMMON_PASSWORDS);

export function isCommonPassword(password: string): boolean {
  const p = password.toLowerCase();
  if (COMMON.has(p)) return true;
  // One character repeated, or a run of one short unit ("abcabcabca"), is as weak as any listed password.
  return /^(.{1,3})\1+.{0,2}$/.test(p);
}
