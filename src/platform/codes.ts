/**
 * The form in which referral and coupon codes are compared: people type them (a friend at checkout,
 * a merchant's upload), so `ALAN-OUTDOORS`, `alan-outdoors` and ` AAA-3 ` name the codes
 * `Alan-Outdoors` and `AAA-3`. Lookups try the code as given first, then this form; no two codes of
 * a merchant share it (vanity codes and coupon uploads are refused when theirs is taken).
 */
export function foldCode(code: string): string {
  const folded = code.trim().toLowerCase();
  // The code itself when it is already folded (every drawn code): read models then hold one string for both.
  return folded === code ? code : folded;
}
