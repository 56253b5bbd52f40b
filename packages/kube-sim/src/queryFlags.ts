/**
 * Boolean query parameters (`watch`, `allowWatchBookmarks`) as the real server decodes them into
 * ListOptions: absent, `0` or `false` in any case is false, anything else (`true`, `1`, the
 * Python client's `True`, even an empty value) is true (apimachinery
 * `Convert_Slice_string_To_bool`; §1 "Watch query values").
 */
export function queryFlag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null) return false;
  return value !== "0" && value.toLowerCase() !== "false";
}
