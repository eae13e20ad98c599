"use strict";
/*
 * Generator plugin entry of image-editor-bridge (reference photoshop.md part A).
 *
 * generator-core `require()`s this folder and calls `init(generator, config, logger)` synchronously. The bridge
 * itself is ESM, so it is loaded with `import()`; a failure after `init` returns would be a rejected promise that
 * generator-core never observes, so it is logged and kept in `exports.health` instead.
 *
 * This file runs on Photoshop's bundled Node (18 in recent releases): CommonJS, nothing newer than Node 18. The
 * bridge needs Node 20: on an older Node this entry starts it under a system Node and relays the generator to it
 * (see `startRelay`, and `src/photoshop-relay.ts` for the other side).
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

/** The oldest Node the bridge itself runs on. */
var MIN_NODE_MAJOR = 20;

/** Whether the bridge must run in a relay child: Photoshop's bundled Node is too old (or `config.relay` says so). */
function needsRelay(config) {
  if (config.relay === true) return true;
  if (config.relay === false) return false;
  return Number(process.versions.node.split(".")[0]) < MIN_NODE_MAJOR;
}

/**
 * A Node ≥ 20 to run the bridge under: `config.nodePath`, else `node` on the PATH. Throws with what to do when
 * there is none.
 */
function systemNode(config) {
  var node = typeof config.nodePath === "string" && config.nodePath !== "" ? config.nodePath : "node";
  var version;
  try {
    version = String(require("child_process").execFileSync(node, ["-p", "process.versions.node"], { encoding: "utf8", timeout: 10000 })).trim();
  } catch (error) {
    throw new Error(
      "Photoshop's Node " + process.version + " is too old for the bridge (it needs " + MIN_NODE_MAJOR + "+), and no other Node was found at \"" +
        node + "\": install Node " + MIN_NODE_MAJOR + " or later, or set nodePath in the plugin's Generator config"
    );
  }
  if (Number(version.split(".")[0]) < MIN_NODE_MAJOR) {
    throw new Error("The Node at \"" + node + "\" is " + version + "; the bridge needs " + MIN_NODE_MAJOR + " or later (set nodePath)");
  }
  return node;
}

/**
 * Runs the bridge in a child process under a system Node ≥ 20 and relays the generator to it: the child's calls
 * (`evaluateJSXString`, `getPixmap`, `getPhotoshopVersion`) and event subscriptions come over IPC as JSON, the
 * answers and events go back, and Photoshop closing closes the child's bridge. Resolves with `{url, wsUrl,
 * close()}` once the child listens.
 */
exports.startRelay = function startRelay(generator, config, logger) {
  var node = systemNode(config);
  var root = config && typeof config.packageDir === "string" ? config.packageDir : path.join(__dirname, "..");
  var entry = typeof config.relayEntry === "string" ? config.relayEntry : path.join(root, "dist", "photoshop-relay.js");
  var childConfig = {};
  for (var key in config) if (key !== "nodePath" && key !== "relay" && key !== "relayEntry") childConfig[key] = config[key];
  var child = require("child_process").fork(entry, ["--relay"], {
    execPath: node,
    execArgv: Array.isArray(config.relayExecArgv) ? config.relayExecArgv : [],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  var listeners = {};
  var finished = false;
  function post(message) {
    if (child.connected) child.send(message);
  }
  function answer(id, promise) {
    Promise.resolve(promise).then(
      function (value) {
        if (value && typeof value === "object" && Buffer.isBuffer(value.pixels)) {
          var copy = {};
          for (var k in value) copy[k] = value[k];
          copy.pixels = value.pixels.toString("base64");
          value = copy;
        }
        post({ t: "result", id: id, ok: true, value: value === undefined ? null : value });
      },
      function (error) {
        post({ t: "result", id: id, ok: false, error: String((error && error.message) || error) });
      }
    );
  }
  var relayed = { evaluateJSXString: true, getPixmap: true, getPhotoshopVersion: true };
  generator.on("close", function () {
    post({ t: "close" });
  });
  return new Promise(function (resolve, reject) {
    child.on("message", function (message) {
      if (message.t === "call") {
        if (!relayed[message.method] || typeof generator[message.method] !== "function") {
          post({ t: "result", id: message.id, ok: false, error: "the generator has no " + message.method });
        } else {
          answer(message.id, generator[message.method].apply(generator, message.args));
        }
      } else if (message.t === "on" && !listeners[message.name]) {
        listeners[message.name] = function (data) {
          post({ t: "event", name: message.name, data: data === undefined ? null : data });
        };
        generator.onPhotoshopEvent(message.name, listeners[message.name]);
      } else if (message.t === "off" && listeners[message.name]) {
        generator.removePhotoshopEventListener(message.name, listeners[message.name]);
        delete listeners[message.name];
      } else if (message.t === "log") {
        (message.level === "error" ? logger.error : logger.info).apply(logger, [message.message].concat(message.args || []));
      } else if (message.t === "started") {
        finished = true;
        resolve({
          url: message.url,
          wsUrl: message.wsUrl,
          pid: child.pid,
          close: function () {
            return new Promise(function (done) {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once("exit", function () {
                done();
              });
              post({ t: "close" });
            });
          },
        });
      } else if (message.t === "failed") {
        finished = true;
        reject(new Error(message.error));
      }
    });
    child.on("exit", function (code, signal) {
      if (!finished) reject(new Error("the bridge's relay process ended before it listened (" + (signal || "exit code " + code) + ")"));
    });
    post({ t: "start", config: childConfig });
  });
};

exports.init = function init(generator, config, logger) {
  var health = { status: "starting", error: undefined, bridge: undefined };
  exports.health = health;
  logger.info("image-editor-bridge plugin starting on Node %s", process.version);
  var settings = config || {};
  var started;
  if (needsRelay(settings)) {
    logger.info("image-editor-bridge runs under a system Node, relayed to this plugin (the bridge needs Node %s+)", MIN_NODE_MAJOR);
    started = new Promise(function (resolve) {
      resolve(exports.startRelay(generator, settings, logger));
    });
  } else {
    started = exports.loadBridge(settings).then(function (mod) {
      return mod.startPlugin(generator, settings, logger);
    });
  }
  return started
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
