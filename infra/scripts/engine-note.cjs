// preinstall: runs on the shell's Node, before the pinned Node 24 exists. npm's loglevel=error
// (.npmrc) hides the EBADENGINE warnings this Node would cause; say once why that is fine.
const major = Number(process.versions.node.split('.')[0]);
if (major !== 24) {
  console.error(`note: npm runs on Node ${process.version}; agentq runs on the Node 24 pinned in node_modules/.bin (npm scripts use it), so engine warnings are not shown.`);
}
