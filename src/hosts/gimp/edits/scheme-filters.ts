/*
 * The Scheme of `layer:adjust` and `filter:apply` (`filters.ts` writes the procedure calls), loaded with the library.
 */
export const EDIT_FILTER_SCHEME = `
; Runs thunk (PDB calls on layer l) as one undo step, after checking l is a layer of img whose pixels may change.
(define (br-pixels img l thunk)
  (br-unlocked (br-layer img l))
  (br-edit img (lambda () (thunk) l)))

; A gradient map through a gradient made of stops ((location (r g b)) ...), locations 0-1 ascending: one linear
; segment between each two stops (flat before the first and after the last), removed again after plug-in-gradmap.
(define (br-gradient-map l stops)
  (let* ((img (car (gimp-item-get-image l)))
         (points (append (if (> (car (car stops)) 0) (list (list 0 (cadr (car stops)))) '())
                         stops
                         (let ((last (car (last-pair stops)))) (if (< (car last) 1) (list (list 1 (cadr last))) '()))))
         (n (- (length points) 1))
         (g (car (gimp-gradient-new "image-editor-bridge map"))))
    (if (> n 1) (gimp-gradient-segment-range-split-uniform g 0 0 n))
    (let loop ((i 0) (ps points))
      (if (< i n)
          (let ((a (car ps)) (b (cadr ps)))
            (gimp-gradient-segment-set-right-pos g i (max (car a) (min 1 (car b))))
            (gimp-gradient-segment-set-left-pos g i (car a))
            (gimp-gradient-segment-set-middle-pos g i (/ (+ (car a) (max (car a) (car b))) 2))
            (gimp-gradient-segment-set-left-color g i (cadr a) 100)
            (gimp-gradient-segment-set-right-color g i (cadr b) 100)
            (loop (+ i 1) (cdr ps)))))
    (gimp-context-set-gradient g)
    (plug-in-gradmap RUN-NONINTERACTIVE img l)
    (gimp-gradient-delete g)))
`;
