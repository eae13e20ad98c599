"use strict";
/*
 * Generator plugin entry of image-editor-bridge (reference photoshop.md part A).
 *
 * generator-core `require()`s this folder and calls `init(generator, config, logger)` synchronously. The bridge
 * itself is ESM, so it is loaded with `import()`; a failure after `init` returns would be a rejected promise that
 * generator-core never observes, so it is logged and kept in `exports.health` instead.
 *
 * This file runs on Photoshop's bundled Node (18 in recent releases): CommonJS, nothing newer than Node 18.
 */
var path = require("path");
var url = require("url");

/**
 * The ESM module with `startPlugin`: in the installed package beside this folder (symlinks are resolved, so a
 * symlinked plugin folder still finds it), or under `config.packageDir` when the folder was copied elsewhere.
 */
function entryPath(config) {
  var root = config && typeof config.packageDir === "string" ? config.packageDir : path.join(__dirname, "..");
  return path.join(root, "dist", "photoshop-plugin.js");
}

/** Loads the bridge; replaceable so tests can load the TypeScript sources instead of `dist/`. */
exports.loadBridge = function loadBridge(config) {
  return import(url.pathToFileURL(entryPath(config)).href);
};

/** Start-up state, since generator-core cannot report asynchronous failures: `starting`, `running`, `failed`. */
exports.health = { status: "idle", error: undefined, bridge: undefined };

exports.init = function init(generator, config, logger) {
  var health = { status: "starting", error: undefined, bridge: undefined };
  exports.health = health;
  logger.info("image-editor-bridge plugin starting on Node %s", process.version);
  return exports
    .loadBridge(config || {})
    .then(function (mod) {
      return mod.startPlugin(generator, config || {}, logger);
    })
    .then(
      function (bridge) {
        health.status = "running";
        health.bridge = bridge;
        return bridge;
      },
      function (error) {
        health.status = "failed";
        health.error = String((error && error.message) || error);
        logger.error("image-editor-bridge failed to start: %s", (error && error.stack) || error);
        return undefined;
      }
    );
};
