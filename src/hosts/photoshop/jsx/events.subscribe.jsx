// @bridge-op events.subscribe
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// p: {event, subscribe}: (un)subscribes this connection to one Photoshop event; deliveries arrive later on the
// id of the subscribing request as "name\rdata".
function run(p) {
  var desc = new ActionDescriptor();
  desc.putClass(stringIDToTypeID("eventIDAttr"), stringIDToTypeID(p.event));
  desc.putString(stringIDToTypeID("version"), "1.0.0");
  executeAction(stringIDToTypeID(p.subscribe ? "networkEventSubscribe" : "networkEventUnsubscribe"), desc, DialogModes.NO);
  return true;
}
