// @bridge-op edit.contents
// biome-ignore-all lint: ExtendScript is ES3 (var-scoped, no JSON object), not modern JavaScript
// layer:replaceContents, one history state named p.history. The bridge has already sized the image (p.path, a PNG)
// for the layer:
// - a smart object (p.smartObject) takes it as its new content through Layer > Smart Objects > Replace Contents
//   (the ActionManager's placedLayerReplaceContents with the file in `null`), which keeps the layer's transform; the
//   image is exactly the size of the old content, so its frame's corners stay where they were;
// - any other layer is rasterised (text, shape and fill layers: ArtLayer.rasterize), emptied (Selection.clear over
//   all of it, the user's selection kept in an alpha channel), and the image, opened and copied into the document
//   directly above it at p.x, p.y, is merged down into it (ArtLayer.merge: the layer below stays, with its name,
//   place, mask, style, blend mode and opacity).
function run(p) {
  var doc = __activate(__doc(p.documentId)), e = p.edit;
  var layer = __unlocked(doc, __domLayer(doc, e.layerId));
  if (layer.typename !== "ArtLayer") __fail("BAD_REQUEST", "Cannot replace the contents of a group", { layerId: e.layerId, kind: "group" });
  if (layer.isBackgroundLayer) {
    __fail("NOT_SUPPORTED", "Photoshop's Background layer cannot be transparent around a new image: make it a layer first", {
      editor: "photoshop", capability: "layer:replaceContents", layerId: e.layerId, kind: "background" });
  }
  if (!new File(p.path).exists) __fail("NOT_FOUND", "The image to place is gone: " + p.path, { path: p.path });
  if (p.smartObject) {
    return __inHistory(doc, p.history, function () {
      __selectLayer(e.layerId);
      var desc = new ActionDescriptor();
      desc.putPath(charIDToTypeID("null"), new File(p.path));
      executeAction(stringIDToTypeID("placedLayerReplaceContents"), desc, DialogModes.NO);
      return {};
    });
  }
  return __inHistory(doc, p.history, function () {
    var kind = String(layer.kind);
    if (kind !== "LayerKind.NORMAL") layer.rasterize(RasterizeType.ENTIRELAYER);
    __selectLayer(e.layerId);
    var saved = null;
    if (__selectionRect(doc) !== null) {
      saved = doc.channels.add();
      doc.selection.store(saved);
      doc.activeChannels = doc.componentChannels;
    }
    doc.selection.selectAll();
    doc.selection.clear();
    if (saved !== null) {
      doc.selection.load(saved);
      saved.remove();
    } else {
      doc.selection.deselect();
    }
    var placed = __copyImageIn(doc, p.path, layer, p.x, p.y);
    // Merge Down needs the layer below shown; it is hidden again after.
    var hidden = layer.visible !== true;
    if (hidden) layer.visible = true;
    var merged = placed.merge();
    if (hidden) merged.visible = false;
    return {};
  });
}
