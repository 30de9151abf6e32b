/**
 * The console's entry: it runs on the base URL's origin only (the login returns there and the
 * API is called there), so a page opened under another name of the host goes there first.
 */
import { render } from "preact";
import { App } from "./app.js";
import { BASE_URL } from "./config.js";
import "./styles.css";

const origin = new URL(BASE_URL).origin;
if (location.origin !== origin) {
  location.replace(`${origin}${location.pathname}${location.search}`);
} else {
  render(<App />, document.getElementById("app") as HTMLElement);
}
