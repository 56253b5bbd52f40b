import { describe, expect, it } from "vitest";
import { BOX_ERROR_CODES, httpStatusOf } from "./boxError.ts";
import { boxErrorFromResponse } from "./errors.ts";

describe("boxErrorFromResponse", () => {
  it("takes the code and message from boxd's error body", () => {
    for (const code of BOX_ERROR_CODES) {
      const body = JSON.stringify({ error: { code, message: `because ${code}` } });
      const error = boxErrorFromResponse(httpStatusOf(code), body);
      expect({ code: error.code, message: error.message, status: error.status }).toEqual({
        code,
        message: `because ${code}`,
        status: httpStatusOf(code),
      });
    }
  });

  it.each([
    [401, "", "unauthorized"],
    [421, "", "wrong_pod"],
    [404, "<html>not found</html>", "not_found"],
    [413, "", "too_large"],
    [507, "", "disk_full"],
    [502, "bad gateway", "unavailable"],
    [503, "", "unavailable"],
    [504, "", "timeout"],
    [500, "oops", "internal"],
    [418, "", "internal"],
  ])("maps a bare HTTP %i to a code when there is no error body", (status, body, code) => {
    expect(boxErrorFromResponse(status, body).code).toBe(code);
  });

  it("does not trust an error body with an unknown code", () => {
    const body = JSON.stringify({ error: { code: "something_new", message: "?" } });
    expect(boxErrorFromResponse(409, body).code).toBe("internal");
  });
});
