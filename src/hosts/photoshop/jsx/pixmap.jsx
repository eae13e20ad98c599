// @bridge-op pixmap
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Asks Photoshop to push a layer's (or the whole document's) pixels to this connection: replies on the same id
// are a bounds JSON, an IMAGE message and this script's envelope, in any order.
// p: {documentId?, layerId?, scale, maxDimension, boundsOnly}; without layerId the whole document composite.

// Generator indices of the hidden layers, and of every layer inside a hidden group.
function __hidden(entries, hideAll, out) {
  for (var i = 0; i < entries.length; i++) {
    var hide = hideAll || !__visible(entries[i]);
    if (hide) out.push(entries[i].index);
    if (entries[i].children) __hidden(entries[i].children, hide, out);
  }
  return out;
}

function run(p) {
  var doc = __doc(p.documentId), desc = new ActionDescriptor();
  desc.putInteger(stringIDToTypeID("documentID"), doc.id);
  desc.putInteger(stringIDToTypeID("width"), p.maxDimension);
  desc.putInteger(stringIDToTypeID("height"), p.maxDimension);
  desc.putInteger(stringIDToTypeID("format"), 2);
  if (p.layerId !== undefined && p.layerId !== null) {
    __layer(doc, p.layerId);
    desc.putInteger(stringIDToTypeID("layerID"), p.layerId);
  } else {
    // The range is every generator index: the top-most layer has the highest.
    var entries = __entries(doc), top = [], last = entries.length > 0 ? entries[0].index : 0;
    desc.putInteger(stringIDToTypeID("firstLayer"), 0);
    desc.putInteger(stringIDToTypeID("lastLayer"), last);
    // A layer range renders hidden layers too: each one is switched off by a layerSettings entry, one entry per
    // index of the range in order (generator-core's getLayerPixmap.jsx builds the same list).
    for (var e = 0; e < entries.length; e++) if (entries[e].depth === 0) top.push(entries[e]);
    var hidden = __hidden(top, false, []);
    if (hidden.length > 0) {
      var isHidden = {}, settings = new ActionList(), ls = stringIDToTypeID("layerSettings");
      var off = new ActionDescriptor(), on = new ActionDescriptor(), disabled = new ActionDescriptor();
      disabled.putBoolean(stringIDToTypeID("enabled"), false);
      off.putObject(ls, ls, disabled);
      for (var h = 0; h < hidden.length; h++) isHidden[hidden[h]] = true;
      for (var x = 0; x <= last; x++) settings.putObject(ls, isHidden[x] ? off : on);
      desc.putList(ls, settings);
    }
    desc.putBoolean(stringIDToTypeID("clipToDocumentBounds"), true);
  }
  if (p.scale !== 1) {
    var transform = new ActionDescriptor();
    transform.putBoolean(stringIDToTypeID("forceDumbScaling"), true);
    transform.putDouble(charIDToTypeID("Wdth"), p.scale * 100);
    transform.putDouble(charIDToTypeID("Hght"), p.scale * 100);
    desc.putObject(stringIDToTypeID("transform"), stringIDToTypeID("transform"), transform);
  }
  desc.putEnumerated(stringIDToTypeID("includeAncestors"), stringIDToTypeID("includeLayers"), stringIDToTypeID("includeNone"));
  desc.putEnumerated(stringIDToTypeID("includeAdjustors"), stringIDToTypeID("includeLayers"), stringIDToTypeID("includeVisible"));
  desc.putBoolean(stringIDToTypeID("allowDither"), false);
  desc.putBoolean(stringIDToTypeID("useColorSettingsDither"), false);
  if (p.boundsOnly) desc.putBoolean(stringIDToTypeID("boundsOnly"), true);
  desc.putBoolean(stringIDToTypeID("bounds"), true);
  executeAction(stringIDToTypeID("sendLayerThumbnailToNetworkClient"), desc, DialogModes.NO);
  return true;
}
