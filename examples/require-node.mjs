// Imported first by every example: one clear line instead of a silent exit or a stack trace
// when the Node.js running it is older than cyrnel's (24).
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `cyrnel's examples need Node.js 24 or newer; this is ${process.version}. Run eval "$(bash scripts/toolchain.sh)" first.`,
  );
  process.exit(1);
}
