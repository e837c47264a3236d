// POST a JSON body and read the server-sent events of the response as they arrive.
// (EventSource can only GET.)  Lines may end with \r\n; events are separated by a blank line.
export async function streamPost(path, body, onItem) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    let message = `${response.status}`;
    let fix = null;
    try { ({ error: message = message, fix = null } = await response.json()); } catch { /* not JSON */ }
    const error = new Error(message);
    error.fix = fix;  // the setting that fixes it (common.js links to it)
    throw error;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
      if (data) onItem(JSON.parse(data));
    }
  }
}
