/*
 * The Scheme of selection edits (loaded with the library), each one undo step of the image (`br-edit`) that
 * answers the selection's bounds as `br-selection` does. Selections are hard-edged (no antialiasing), as the
 * embedded editor makes them.
 */
export const EDIT_SELECTION_SCHEME = `
(define (br-select img thunk)
  (br-image img)
  (br-edit img (lambda () (thunk) (br-selection img))))

(define (br-select-all img) (br-select img (lambda () (gimp-selection-all img))))
(define (br-select-none img) (br-select img (lambda () (gimp-selection-none img))))
(define (br-select-invert img) (br-select img (lambda () (gimp-selection-invert img))))

; The selection as a channel, kept in the image until br-drop-channels removes it.
(define (br-keep-selection img) (car (gimp-selection-save img)))
(define (br-drop-channels img active channels)
  (for-each (lambda (c) (gimp-image-remove-channel img c)) channels)
  (if (and (< (car (gimp-image-get-active-layer img)) 0) (= (car (gimp-item-is-valid active)) 1))
      (gimp-image-set-active-layer img active)))

; A band of width px around the selection's edge: ceil(px/2) outside it, floor(px/2) inside.
(define (br-border img px)
  (let* ((active (car (gimp-image-get-active-layer img)))
         (outer (quotient (+ px 1) 2)) (inner (quotient px 2))
         (original (br-keep-selection img)))
    (if (> outer 0) (gimp-selection-grow img outer))
    (let ((grown (br-keep-selection img)))
      (gimp-image-select-item img CHANNEL-OP-REPLACE original)
      (if (> inner 0) (gimp-selection-shrink img inner))
      (let ((shrunk (br-keep-selection img)))
        (gimp-image-select-item img CHANNEL-OP-REPLACE grown)
        (gimp-image-select-item img CHANNEL-OP-SUBTRACT shrunk)
        (br-drop-channels img active (list original grown shrunk))))))

; Rounded corners: a feather thresholded at half, kept inside the selection it started from.
(define (br-smooth img px)
  (let ((active (car (gimp-image-get-active-layer img)))
        (original (br-keep-selection img)))
    (gimp-selection-feather img px)
    (gimp-selection-sharpen img)
    (gimp-image-select-item img CHANNEL-OP-INTERSECT original)
    (br-drop-channels img active (list original))))

; how: 0 expand, 1 contract, 2 feather, 3 smooth, 4 border.
(define (br-select-modify img how px)
  (br-select img (lambda ()
    (cond ((= how 0) (gimp-selection-grow img px))
          ((= how 1) (gimp-selection-shrink img px))
          ((= how 2) (gimp-selection-feather img px))
          ((= how 3) (br-smooth img px))
          (else (br-border img px))))))

(define (br-select-layer img op l)
  (br-layer img l)
  (br-select img (lambda () (gimp-image-select-item img op l))))

; Pixels whose every channel (alpha too) is within threshold (0-1) of the colour at (x y) in the drawable's own
; pixels (contiguous 1: the region connected to it) or of (r g b); merged 1 samples the composite.
(define (br-select-color img op l merged contiguous x y r g b threshold)
  (if (>= l 0) (br-layer img l))
  (let ((drawable (if (>= l 0) l (car (br-layers-of img 0)))))
    (br-select img (lambda ()
      (gimp-context-set-antialias FALSE)
      (gimp-context-set-feather FALSE)
      (gimp-context-set-sample-merged merged)
      (gimp-context-set-sample-criterion SELECT-CRITERION-COMPOSITE)
      (gimp-context-set-sample-threshold threshold)
      (gimp-context-set-sample-transparent TRUE)
      (gimp-context-set-diagonal-neighbors FALSE)
      (cond ((= contiguous 0) (gimp-image-select-color img op drawable (list r g b)))
            ((or (= merged 1) (br-covers-canvas? img drawable)) (br-wand img op drawable x y))
            ; Past its edges a layer is transparent: a canvas-sized copy lets the region grow from a point
            ; outside the layer, and through its transparent pixels to beyond it.
            (else
             (let ((active (car (gimp-image-get-active-layer img)))
                   (copy (car (gimp-layer-copy drawable TRUE))))
               (gimp-image-insert-layer img copy 0 0)
               (gimp-layer-resize-to-image-size copy)
               (gimp-image-select-contiguous-color img op copy x y)
               (gimp-image-remove-layer img copy)
               (if (= (car (gimp-item-is-valid active)) 1) (gimp-image-set-active-layer img active)))))))))

(define (br-wand img op drawable x y)
  (let ((off (if (= (car (gimp-context-get-sample-merged)) 1) '(0 0) (gimp-drawable-offsets drawable))))
    (gimp-image-select-contiguous-color img op drawable (- x (car off)) (- y (cadr off)))))

; Whether a layer's pixels cover the whole canvas (groups count as covering: GIMP samples their projection).
(define (br-covers-canvas? img l)
  (let ((off (gimp-drawable-offsets l)))
    (or (= (car (gimp-item-is-group l)) 1)
        (and (<= (car off) 0) (<= (cadr off) 0)
             (>= (+ (car off) (car (gimp-drawable-width l))) (car (gimp-image-width img)))
             (>= (+ (cadr off) (car (gimp-drawable-height l))) (car (gimp-image-height img)))))))
`;
