// Feeds generated cases to the assembled module and writes SillyTavern's results (see run.py).
import { runCase, convertBook } from './wi.mjs';
import fs from 'fs';
const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = [];
for (const c of cases) {
    try {
        out.push(c.book ? { converted: convertBook(c.book) } : await runCase(c));
    } catch (e) {
        out.push({ error: String(e && e.stack || e) });
    }
}
fs.writeFileSync(process.argv[3], JSON.stringify(out));
