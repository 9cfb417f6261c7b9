// Prints a small one-page PDF showing TEXT (node pdf.mjs TEXT > file.pdf): a stand-in for the
// reader's own documents. Node only.
import { Buffer } from 'node:buffer';
import process from 'node:process';
const text = (process.argv[2] ?? 'Document').replace(/[()\\]/g, '');
const stream = `BT /F1 18 Tf 20 100 Td (${text}) Tj ET`;
const objects = [
  '<< /Type /Catalog /Pages 2 0 R >>',
  '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
  '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
  `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
  '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
];
let body = '%PDF-1.7\n';
const offsets = objects.map((content, i) => {
  const offset = Buffer.byteLength(body, 'latin1');
  body += `${i + 1} 0 obj\n${content}\nendobj\n`;
  return offset;
});
const xref = Buffer.byteLength(body, 'latin1');
body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
process.stdout.write(Buffer.from(body, 'latin1'));
