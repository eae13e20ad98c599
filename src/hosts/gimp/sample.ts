/** Name of the sample document (`sample: true`). */
export const SAMPLE_NAME = "Sample";

/** Closes every image (`sample: "empty"`). */
export const CLOSE_ALL_SCRIPT = "(begin (for-each (lambda (i) (gimp-image-delete i)) (br-images)) 0)";

/**
 * Closes every image and builds the sample document in Script-Fu: 320×240, `Label` on top, a `Product` group
 * holding `Subject` (active) and a multiplied `Shadow`, and an opaque `Background`. Evaluates to the image id.
 */
export const SAMPLE_SCRIPT = `(begin
(for-each (lambda (i) (gimp-image-delete i)) (br-images))
(let* ((img (car (gimp-image-new 320 240 RGB)))
       (bg (car (gimp-layer-new img 320 240 RGB-IMAGE "Background" 100 LAYER-MODE-NORMAL)))
       (grp (car (gimp-layer-group-new img)))
       (subject (car (gimp-layer-new img 120 100 RGBA-IMAGE "Subject" 100 LAYER-MODE-NORMAL)))
       (shadow (car (gimp-layer-new img 140 30 RGBA-IMAGE "Shadow" 60 LAYER-MODE-MULTIPLY)))
       (label (car (gimp-layer-new img 200 40 RGBA-IMAGE "Label" 100 LAYER-MODE-NORMAL))))
  (gimp-context-push)
  (gimp-image-insert-layer img bg 0 0)
  (gimp-context-set-foreground '(236 236 240))
  (gimp-drawable-fill bg FILL-FOREGROUND)
  (gimp-image-insert-layer img grp 0 0)
  (gimp-item-set-name grp "Product")
  (gimp-image-insert-layer img shadow grp 0)
  (gimp-layer-set-offsets shadow 90 170)
  (gimp-context-set-foreground '(40 40 40))
  (gimp-drawable-fill shadow FILL-FOREGROUND)
  (gimp-image-insert-layer img subject grp 0)
  (gimp-layer-set-offsets subject 100 60)
  (gimp-context-set-foreground '(200 60 40))
  (gimp-drawable-fill subject FILL-FOREGROUND)
  (gimp-image-insert-layer img label 0 0)
  (gimp-layer-set-offsets label 60 10)
  (gimp-context-set-foreground '(30 90 200))
  (gimp-drawable-fill label FILL-FOREGROUND)
  (gimp-context-pop)
  (br-set-name img "${SAMPLE_NAME}")
  (gimp-image-set-active-layer img subject)
  (gimp-selection-none img)
  (gimp-image-clean-all img)
  img))`;
