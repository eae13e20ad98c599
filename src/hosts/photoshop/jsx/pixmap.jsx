// @bridge-op pixmap
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// Asks Photoshop to push a layer's (or the whole document's) pixels to this connection: replies on the same id
// are a bounds JSON, an IMAGE message and this script's envelope, in any order (reference B.6).
// p: {documentId?, layerId?, scale, maxDimension, boundsOnly}; without layerId the whole document composite.
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
    var ref = new ActionReference();
    ref.putProperty(stringIDToTypeID("property"), stringIDToTypeID("numberOfLayers"));
    ref.putIdentifier(charIDToTypeID("Dcmn"), doc.id);
    var count = executeActionGet(ref).getInteger(stringIDToTypeID("numberOfLayers"));
    desc.putInteger(stringIDToTypeID("firstLayer"), 0);
    desc.putInteger(stringIDToTypeID("lastLayer"), __hasBackground(doc) ? count : count - 1);
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
