/**
 * Imported first by both entry points: on a Node.js older than 24 (isolated-vm 7 and
 * better-sqlite3 13 have no build for it) the server stops with one line naming the version it
 * needs, instead of a native module's "No native build was found" stack. `check-node.cjs`, the
 * package's `preinstall`, says the same before an install builds anything.
 */
export const REQUIRED_NODE_MAJOR = 24;

const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_NODE_MAJOR) {
  process.stderr.write(`cyrnel needs Node.js ${REQUIRED_NODE_MAJOR} or newer; this is ${process.version}.\n`);
  process.exit(1);
}
