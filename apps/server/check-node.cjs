// The Node.js version check that runs before anything else of the server, on any Node.js (plain
// ES5, CommonJS): the package's `preinstall`, which npm runs before the install scripts of the
// dependencies, so that `npm install @cyrnel/server` on an older Node stops with one plain line
// instead of failing inside node-gyp (isolated-vm and better-sqlite3 ship binaries for Node 24
// only). The binary checks the same at start (src/require-node.ts).
//
//   node check-node.cjs   # exit 1 and "cyrnel needs Node.js 24 or newer; …" on an older Node
'use strict';

var REQUIRED_NODE_MAJOR = 24;

/** The line to print when `version` (process.version, `v20.11.0`) is too old, else null. */
function nodeVersionProblem(version) {
  var major = Number(String(version).replace(/^v/, '').split('.')[0]);
  if (major >= REQUIRED_NODE_MAJOR) return null;
  return 'cyrnel needs Node.js ' + REQUIRED_NODE_MAJOR + ' or newer; this is ' + version + '.';
}

module.exports = { REQUIRED_NODE_MAJOR: REQUIRED_NODE_MAJOR, nodeVersionProblem: nodeVersionProblem };

/** Run as a script: exit 1 with the line and what to do when this Node.js is too old. */
function main() {
  var problem = nodeVersionProblem(process.version);
  if (!problem) return;
  process.stderr.write(
    problem +
      ' (' +
      process.execPath +
      ')\nInstall Node.js ' +
      REQUIRED_NODE_MAJOR +
      ' or newer (https://nodejs.org/en/download), put it first on the PATH and install again:' +
      " the server's native modules (isolated-vm, better-sqlite3) have no build for Node.js " +
      process.versions.node.split('.')[0] +
      '.\n',
  );
  process.exit(1);
}

if (require.main === module) main();
